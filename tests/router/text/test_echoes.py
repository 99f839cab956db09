"""Strong secrets out of a response: the content, its citations' spans moved with it.

:func:`router.text.echoes.redacted_response` leaves a response that quotes no secret as it is
(the same object), and rewrites one that does so that every offset still points at the same
words of the redacted content.
"""

from __future__ import annotations

from router.extraction import extract
from router.text.echoes import redact_content, redacted_response
from router.text.redaction import REDACTED, register_secret
from support.replies import reply_body
from support.secret_watch import SENTINEL_OPENAI_KEY, sentinel_findings


def test_a_response_quoting_no_secret_is_returned_as_it_is() -> None:
    """Nothing is copied when no registered strong secret occurs in the response."""
    register_secret(SENTINEL_OPENAI_KEY)
    response = extract("openai", reply_body("openai", "Paris is the capital of France."))
    assert redacted_response(response) is response


def test_spans_after_a_quoted_key_point_at_the_same_words() -> None:
    """The key is cut from content and metadata; a span after it covers the same text."""
    register_secret(SENTINEL_OPENAI_KEY)
    answer = f"Key {SENTINEL_OPENAI_KEY} aside, Paris is the capital."
    response = extract("openai", reply_body("openai", "Paris is the capital."))
    start = answer.index("Paris")
    citation = {
        **response.citations[0],
        "spans": [{"start": start, "end": start + 5, "text": "Paris"}],
    }
    quoted = response.model_copy(
        update={"content": answer, "citations": [citation], "metadata": {"citations": [citation]}}
    )
    redacted = redacted_response(quoted)
    (span,) = redacted.citations[0]["spans"]
    assert redacted.content[span["start"] : span["end"]] == "Paris"
    assert REDACTED in redacted.content
    assert redacted.metadata["citations"] == redacted.citations
    assert sentinel_findings(redacted) == []


def test_an_offset_inside_a_secret_moves_to_the_end_of_its_marker() -> None:
    """Offsets before, inside and after a removed secret map as the text was rewritten."""
    register_secret(SENTINEL_OPENAI_KEY)
    text = f"ab{SENTINEL_OPENAI_KEY}cd"
    redacted, offsets = redact_content(text)
    assert redacted == f"ab{REDACTED}cd"
    assert offsets(1) == 1
    assert offsets(5) == 2 + len(REDACTED)
    assert redacted[offsets(len(text) - 2) :] == "cd"


def test_a_key_in_any_spelling_or_value_of_the_metadata_is_found() -> None:
    """The quick scan misses no string: nested, in a key, percent-encoded, beside lone surrogates,
    or in a value it cannot write (a dict subclass), the key is cut all the same."""

    class Row(dict[str, str]):
        """A mapping type the quick scan has no format for."""

    register_secret(SENTINEL_OPENAI_KEY)
    encoded = "".join(f"%{byte:02X}" for byte in SENTINEL_OPENAI_KEY.encode())
    plain = extract("openai", reply_body("openai", "Paris is the capital."))
    for held in (
        {"deep": [[{"x": ["y", f"see {SENTINEL_OPENAI_KEY}"]}]]},
        {f"k{SENTINEL_OPENAI_KEY}": 1},
        {"url": f"https://example.com/?key={encoded}"},
        {"text": f"\ud800{SENTINEL_OPENAI_KEY}\udfff"},
        {"row": Row(text=SENTINEL_OPENAI_KEY)},
    ):
        quoted = plain.model_copy(update={"metadata": {**plain.metadata, "extra": held}})
        redacted = redacted_response(quoted)
        assert redacted is not quoted, held
        assert SENTINEL_OPENAI_KEY not in repr(redacted.metadata["extra"]), held
        assert encoded not in repr(redacted.metadata["extra"]), held
