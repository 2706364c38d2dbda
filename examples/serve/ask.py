"""Talk to a character served by ``incanon serve`` through the ``openai`` client.

Usage: python examples/serve/ask.py [BASE_URL] [MODEL] [QUESTION]

Waits up to a minute for the server to come up (so it can be started just before), lists the
characters it offers, asks one of them a question at a point of the story, and prints the reply
with how much of the story the character cannot see there.
"""

from __future__ import annotations

import sys
import time

from openai import APIConnectionError, OpenAI

base_url = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8765/v1"
model = sys.argv[2] if len(sys.argv) > 2 else "lanterns/Wren Callow@end of book 1"
question = sys.argv[3] if len(sys.argv) > 3 else "Who keeps the lamps lit?"

client = OpenAI(base_url=base_url, api_key="unused", max_retries=0)
deadline = time.monotonic() + 60
while True:
    try:
        offered = client.models.list().data
        break
    except APIConnectionError:
        if time.monotonic() > deadline:
            sys.exit(f"no incanon server answered at {base_url}")
        time.sleep(0.5)

print(f"{len(offered)} characters at their time points, e.g. {offered[0].id}")
reply = client.chat.completions.create(model=model, messages=[{"role": "user", "content": question}])
extra = reply.model_extra["incanon"]
print(f"{extra['character']} at {extra['at']}: {reply.choices[0].message.content}")
hidden = extra["scope"]["hidden"]
print("hidden from them here: " + ", ".join(f"{n} {what.replace('_', ' ')}" for what, n in hidden.items()))
