"""Given-circumstance acting: the multi-agent simulation of CoSER test cases, and its runs."""

from incanon.bench.coser.simulation.case import case_domain, case_id, major_characters, profiles, speakers
from incanon.bench.coser.simulation.engine import Cast, SimMessage, Simulation, SimulationConfig, simulate_case, view
from incanon.bench.coser.simulation.nsp import Decision, Prediction, decide, parse_prediction
from incanon.bench.coser.simulation.rag import BookMemory, RagSpec, parse_rag

__all__ = [
    "BookMemory",
    "Cast",
    "Decision",
    "Prediction",
    "RagSpec",
    "SimMessage",
    "Simulation",
    "SimulationConfig",
    "case_domain",
    "case_id",
    "decide",
    "major_characters",
    "parse_prediction",
    "parse_rag",
    "profiles",
    "simulate_case",
    "speakers",
    "view",
]
