"""The emulator's OpenRouter replies: the same request gets the same id in any second."""

from __future__ import annotations

from router.emulator.apis import openrouter
from router.emulator.catalogue import answer_for

QUESTION = "What is the latest stable Ruby?"


def test_the_id_does_not_depend_on_the_second() -> None:
    """Two replies to one request made a second apart share their id, as route and stream must."""
    ask = openrouter.read_request(
        {
            "model": "openai/gpt-4o-mini",
            "messages": [{"role": "user", "content": QUESTION}],
            "plugins": [{"id": "web"}],
        }
    )
    made = [
        openrouter.build_response(
            ask, answer_for(ask.question), fault=None, serial="ab12" * 6, created=second
        )
        for second in (1_786_680_756, 1_786_680_757)
    ]
    assert made[0]["id"] == made[1]["id"]
    assert made[0]["id"].startswith("gen-")
    assert made[0]["created"] != made[1]["created"]
