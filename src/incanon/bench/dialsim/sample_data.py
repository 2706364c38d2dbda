"""Hand-checked DialSim data for the sample world's dialogue: its TKG and a small fan quiz.

Every quadruple below is stated in the session it cites (read the script to check). Session 5 is
the one Wren Callow misses, so what only it says (Ilse is a clerk, Jory is courting her) is
unanswerable for Wren until she hears it herself. Written as Python, not data files, so it ships
inside the package with the code that reads it.
"""

from __future__ import annotations

SAMPLE_TKG_ROWS: tuple[tuple[str, str, str, str], ...] = (
    # session-1, 1187-03-22: the Wick, after Wren's first night on the Sea Wall
    ("Jory Callow", "sister", "Wren Callow", "session-1"),
    ("Wren Callow", "brother", "Jory Callow", "session-1"),
    ("Wren Callow", "job", "lamplighter", "session-1"),
    ("Nell Hobb", "job", "tavern keeper", "session-1"),
    # session-2, 1187-10-06: the Lamphouse, Dace's measuring stick
    ("Wren Callow", "boss", "Ottilie Brand", "session-2"),
    ("Dace Morrow", "boss", "Ottilie Brand", "session-2"),
    ("Ottilie Brand", "subordinate", "Wren Callow", "session-2"),
    ("Ottilie Brand", "subordinate", "Dace Morrow", "session-2"),
    ("Dace Morrow", "job", "lamplighter", "session-2"),
    # session-3, 1187-10-09: the glassworks, the furnace levy
    ("Sefa Quill", "father", "Amos Quill", "session-3"),
    ("Amos Quill", "job", "glassblower", "session-3"),
    ("Wren Callow", "brother", "Jory Callow", "session-3"),
    # session-4, 1187-10-20: the chapel tower and the flood bell
    ("Ottilie Brand", "age", "73", "session-4"),
    ("Brother Tobiah", "place of work", "the chapel", "session-4"),
    # session-5, 1187-10-28: the rescue on the flood water (Wren is not there)
    ("Sefa Quill", "father", "Amos Quill", "session-5"),
    ("Jory Callow", "sister", "Wren Callow", "session-5"),
    ("Ilse Varga", "job", "clerk", "session-5"),
    ("Jory Callow", "girlfriend", "Ilse Varga", "session-5"),
    ("Jory Callow", "job", "bargeman", "session-5"),
    # session-6, 1187-10-29: the square, the Provost's address
    ("Aldric Hame", "job", "Provost of Harrowmere", "session-6"),
    ("Garrick Rusk", "boss", "Aldric Hame", "session-6"),
    ("Aldric Hame", "subordinate", "Garrick Rusk", "session-6"),
    ("Garrick Rusk", "job", "captain of the watch", "session-6"),
    ("Pell", "job", "town crier", "session-6"),
    ("Jory Callow", "dating with", "Ilse Varga", "session-6"),
    ("Jory Callow", "job", "bargeman", "session-6"),
    # session-7, 1187-11-16: on Jory's barge, the betrothal
    ("Jory Callow", "fiancee", "Ilse Varga", "session-7"),
    ("Ilse Varga", "fiance", "Jory Callow", "session-7"),
    ("Jory Callow", "sister", "Wren Callow", "session-7"),
    ("Wren Callow", "place of work", "the Beacon Tower", "session-7"),
    ("Dace Morrow", "place of work", "the Beacon Tower", "session-7"),
    # session-10, 1188-04-12: the wedding supper at the Wick
    ("Jory Callow", "wife", "Ilse Varga", "session-10"),
    ("Ilse Varga", "husband", "Jory Callow", "session-10"),
    ("Nell Hobb", "job", "tavern keeper", "session-10"),
    # session-11, 1188-04-20: the Assembly
    ("Ilse Varga", "job", "clerk", "session-11"),
    ("Ilse Varga", "place of work", "the Counting House", "session-11"),
    ("Garrick Rusk", "boss", "Aldric Hame", "session-11"),
    ("Sefa Quill", "place of work", "the glassworks", "session-11"),
)

#: Fan-quiz questions in the file form ``load_fan_quiz`` reads (evidence = the sessions that
#: answer them; ``question_with_time`` adds the date of the last evidence session).
SAMPLE_FAN_QUIZ: tuple[dict, ...] = (
    {"id": "fan-1", "question": "What did the crier proclaim about the Greatgate, according to Nell?",
     "question_with_time": "What did the crier proclaim about the Greatgate {time}, according to Nell?",
     "answer": "That it was mended for a hundred years",
     "options": ["That it was mended for a hundred years", "That it would be rebuilt in oak",
                 "That it would close at night", "That it had failed"],
     "evidence": ["session-1"]},
    {"id": "fan-2", "question": "How much is the furnace levy that Captain Rusk brought to the glassworks?",
     "answer": "Forty crowns",
     "options": ["Forty crowns", "Six crowns", "Twelve hundred crowns", "Five crowns"],
     "evidence": ["session-3"]},
    {"id": "fan-3", "question": "Who was on the bell rope during the flood of seventy?",
     "answer": "Brother Tobiah",
     "options": ["Brother Tobiah", "Ottilie Brand", "Pell", "Amos Quill"],
     "evidence": ["session-4"]},
    {"id": "fan-4", "question": "How many people had Jory's boat picked up by the end of the rescue on the flood night?",
     "question_with_time": "How many people had Jory's boat picked up {time}?",
     "answer": "Five", "options": ["Five", "Three", "Eight", "Two"], "evidence": ["session-5"]},
    {"id": "fan-5", "question": "What did Jory make Ilse's ring from?",
     "question_with_time": "What did Jory make Ilse's ring from, as he told it {time}?",
     "answer": "A rowlock", "options": ["A rowlock", "A lamp hook", "A horseshoe nail", "A chimney ring"],
     "evidence": ["session-7"]},
    {"id": "fan-6", "question": "Where did Wren and Dace hide Ilse's copy of the ledger pages?",
     "answer": "In the hollow base of the First Light's stand",
     "options": ["In the hollow base of the First Light's stand", "Under the chapel bell",
                 "In the marsh hut", "Aboard the Patient Heron"],
     "evidence": ["session-8"]},
    {"id": "fan-7", "question": "Who took the packet of papers from the Beacon Tower?",
     "answer": "Captain Rusk", "options": ["Captain Rusk", "Provost Hame", "Sefa Quill", "Pell"],
     "evidence": ["session-9"]},
)
