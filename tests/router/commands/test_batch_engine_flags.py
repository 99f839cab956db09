"""``grounding-router batch --engine ray``: its flags, and a clear exit when Ray is missing.

None of these start a cluster: each stops before the job would.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from router.cli import main
from router.commands.exit_codes import ExitCode


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text('{"vendor": "openai", "model": "gpt-5", "messages": []}\n')
    return path


def test_missing_ray_exits_not_available_naming_the_extra(
    source: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Without Ray installed, --engine ray exits 9 and says which extra to install."""
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now fails as when missing
    monkeypatch.setitem(sys.modules, "ray.data", None)
    code = main(["batch", str(source), "-o", str(tmp_path / "out.jsonl"), "--engine", "ray"])
    assert code == ExitCode.NOT_AVAILABLE
    assert "pip install 'grounding-router[ray]'" in capsys.readouterr().err
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize(
    "flag", [["--ray-address", "auto"], ["--actors", "1:2"], ["--checkpoint", "c"]]
)
def test_ray_flags_need_the_ray_engine(
    flag: list[str], source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Ray option on a local run is a mistake worth saying, not something to ignore."""
    code = main(["batch", str(source), "-o", str(tmp_path / "out.jsonl"), *flag])
    assert code == ExitCode.BAD_INPUT
    assert f"{flag[0]}: for --engine ray only" in capsys.readouterr().err


def test_workers_and_the_ray_engine_exclude_each_other(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--workers is the local engine's: Ray's actors take its place."""
    args = ["batch", str(source), "-o", str(tmp_path / "o.jsonl"), "--engine", "ray"]
    assert main([*args, "--workers", "2"]) == ExitCode.BAD_INPUT
    assert "--workers is the local engine's" in capsys.readouterr().err


@pytest.mark.parametrize("text", ["2:1", "0:3", "a:b", "1:"])
def test_actor_range_must_read_min_to_max(
    text: str, source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--actors takes MIN:MAX with 1 <= MIN <= MAX (or one number for a fixed pool)."""
    with pytest.raises(SystemExit) as exit_info:
        main(["batch", str(source), "-o", str(tmp_path / "o"), "--engine", "ray", "--actors", text])
    assert exit_info.value.code == 2
    assert "--actors" in capsys.readouterr().err
