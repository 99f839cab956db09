"""A file-size limit on this process, for tests of writers (and guards against runaway ones)."""

from __future__ import annotations

import resource
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["file_size_limit"]


@contextmanager
def file_size_limit(limit: int) -> Iterator[None]:
    """Writes that would make any file of this process larger than ``limit`` fail with EFBIG.

    Python ignores SIGXFSZ, so the write raises ``OSError`` instead of killing the process.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
