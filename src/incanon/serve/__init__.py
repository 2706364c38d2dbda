"""The local web app (``incanon serve``): chat with a character at a point chosen on the work's
timeline, with the knowledge scope and the evidence of every answer in view, and browse runs
(paper-layout tables, filters, charts, per-sample drill-down).

    from incanon.serve import ServeConfig, create_app, serve
    app = create_app(ServeConfig(canon=Path("canon"), runs=Path("runs.sqlite")))   # ASGI app
    serve(config, host="127.0.0.1", port=8765)                                     # blocks

The app binds to 127.0.0.1 unless told otherwise; it has no login.
"""

from incanon.serve.app import create_app
from incanon.serve.chats import ChatRegistry, OpenChat, chat_state
from incanon.serve.config import CHAT_METHODS, ServeConfig
from incanon.serve.runsview import RunsView
from incanon.serve.samples import SampleIndex, SampleQuery, sample_detail, sample_type, summary_row
from incanon.serve.server import BackgroundServer, bind, is_loopback, serve
from incanon.serve.timeline import timeline

__all__ = [
    "BackgroundServer",
    "CHAT_METHODS",
    "ChatRegistry",
    "OpenChat",
    "RunsView",
    "SampleIndex",
    "SampleQuery",
    "ServeConfig",
    "bind",
    "chat_state",
    "create_app",
    "is_loopback",
    "sample_detail",
    "sample_type",
    "serve",
    "summary_row",
    "timeline",
]
