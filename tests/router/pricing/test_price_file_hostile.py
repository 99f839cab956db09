"""A hostile price file (``GROUNDING_ROUTER_PRICES``) is one ``ConfigurationError``.

Huge integers, deep nesting, bytes that are not UTF-8, a file that never ends, and prices that
are not finite non-negative numbers: each is refused with the file and the field named, never a
raw ``ValueError``, ``RecursionError`` or ``UnicodeDecodeError``, and never read without bound.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from router.cli import main
from router.errors import ConfigurationError
from router.pricing.book import MAX_PRICE_FILE_BYTES
from router.respond import load_prices

MODELS = '[openai.models]\n"gpt-5" = {{ input_per_mtok = {input}, output_per_mtok = 1 }}\n'


def refused(path: Path) -> str:
    """The message of the ConfigurationError loading ``path`` raises; it names the file."""
    with pytest.raises(ConfigurationError) as caught:
        load_prices(path)
    message = str(caught.value)
    assert str(path) in message
    return message


@pytest.mark.parametrize(
    "price", ["inf", "+inf", "-inf", "nan", "-nan", "-1", "-0.5"], ids=lambda value: value
)
def test_a_price_must_be_finite_and_not_negative(tmp_path: Path, price: str) -> None:
    """inf, nan and negative prices are refused, naming the field."""
    path = tmp_path / "prices.toml"
    path.write_text(MODELS.format(input=price), encoding="utf-8")
    assert "openai.models.gpt-5.input_per_mtok" in refused(path)


@pytest.mark.parametrize(
    "line",
    [
        '[[openai.search_fees]]\nunit = "call"\nper_1k = inf\n',
        '[openai.models]\n"g" = { input_per_mtok = 1, output_per_mtok = 1, long_context = '
        "{ above_input_tokens = 10, input_per_mtok = nan, output_per_mtok = 1 } }\n",
    ],
    ids=["search_fee", "long_context"],
)
def test_every_price_field_must_be_finite(tmp_path: Path, line: str) -> None:
    """Search fees and long-context prices are held to the same rule."""
    path = tmp_path / "prices.toml"
    path.write_text(line, encoding="utf-8")
    message = refused(path)
    assert "per_1k" in message or "long_context.input_per_mtok" in message


def test_a_5000_digit_integer_is_refused_naming_its_field(tmp_path: Path) -> None:
    """An integer past Python's digit limit names the file, the line and the key."""
    path = tmp_path / "prices.toml"
    path.write_text(MODELS.format(input="9" * 5000), encoding="utf-8")
    message = refused(path)
    assert "line 2" in message
    assert "input_per_mtok" in message


def test_deep_nesting_is_refused_naming_its_field(tmp_path: Path) -> None:
    """Arrays nested thousands deep name the file and the key they sit under."""
    path = tmp_path / "prices.toml"
    path.write_text(
        MODELS.format(input="[" * 5000 + "]" * 5000), encoding="utf-8"
    )  # fmt: skip
    message = refused(path)
    assert "nested" in message
    assert "input_per_mtok" in message


def test_bytes_that_are_not_utf8_are_refused_naming_the_line(tmp_path: Path) -> None:
    """A byte that is not UTF-8 names the file and its line."""
    path = tmp_path / "prices.toml"
    path.write_bytes(b'[openai]\ncurrency = "US\xff"\n')
    message = refused(path)
    assert "UTF-8" in message
    assert "line 2" in message


def test_a_file_past_the_size_limit_is_refused_from_its_size(tmp_path: Path) -> None:
    """A price file larger than the limit is refused before it is read."""
    path = tmp_path / "prices.toml"
    with path.open("wb") as out:
        out.truncate(2 * 1024**3)  # sparse: nothing on disk
    assert f"{MAX_PRICE_FILE_BYTES}" in refused(path)


def test_dev_zero_is_read_only_up_to_the_limit() -> None:
    """/dev/zero, which never ends, is refused once the limit is passed."""
    assert f"{MAX_PRICE_FILE_BYTES}" in refused(Path("/dev/zero"))


def test_a_fifo_is_read_only_up_to_the_limit(tmp_path: Path) -> None:
    """A FIFO whose writer never stops is refused once the limit is passed."""
    fifo = tmp_path / "prices.fifo"
    os.mkfifo(fifo)

    def write_forever() -> None:
        try:
            with fifo.open("wb") as writer:
                while True:
                    writer.write(b"#" * 4096)
        except OSError:  # the reader closed its end: broken pipe
            pass

    writer = threading.Thread(target=write_forever, daemon=True)
    writer.start()
    assert f"{MAX_PRICE_FILE_BYTES}" in refused(fifo)
    writer.join()


def test_finite_prices_still_load(tmp_path: Path) -> None:
    """Ordinary prices (zero included) load as before."""
    path = tmp_path / "prices.toml"
    path.write_text(MODELS.format(input="0"), encoding="utf-8")
    prices = load_prices(path).prices("openai")
    assert prices is not None
    assert prices.models["gpt-5"].input_per_mtok == 0


def test_the_cli_exits_5_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The CLI reports a hostile price file as a configuration error (exit 5), no traceback."""
    path = tmp_path / "prices.toml"
    path.write_text(MODELS.format(input="9" * 5000), encoding="utf-8")
    monkeypatch.setenv("GROUNDING_ROUTER_PRICES", str(path))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert main(["route", "--vendor", "openai", "--model", "gpt-5", "hello"]) == 5
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert str(path) in err
