"""Support scorers: plain callables ``(claim, passage) -> float in [0, 1]``.

A scorer says how well ``passage`` (what the provider quotes from the source) backs ``claim``
(a sentence of the answer). ``verify`` calls it once for each attribution of each cited claim
and keeps the best score. A natural-language-inference model plugs in the same way: wrap it in
a function of two strings that returns its entailment probability (give the function a
``__name__``: the report names the scorer it used).

Built in:

- :func:`lexical`: the share of the claim's content words (stemmed by Snowball's English
  stemmer from PyStemmer, case- and accent-folded, stop words dropped) that the passage holds.
  No model: it tells whether the passage talks
  about the same things, not whether it says the same about them ("rose" and "did not rise"
  share their content words; a paraphrase shares few).
- :func:`provider_confidence`: the provider's own score for the attribution (Gemini's
  ``confidenceScores``); ``verify`` hands it the attribution's ``confidence`` instead of
  comparing texts.
"""

from __future__ import annotations

import math
import re
import threading
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from typing import Any

__all__ = ["Scorer", "content_words", "lexical", "provider_confidence"]

Scorer = Callable[[str, str], float]

# Stop words of the languages the answers mostly come in; the rest are kept (a few extra words
# counted as content lower a score slightly, never raise it).
_STOP_WORD_TEXT = """
a about above after again against all also am an and any are as at be because been before
being below between both but by can could did do does doing down during each few for from
further had has have having he her here hers him his how i if in into is it its itself just
me more most my no nor not now of off on once only or other our ours out over own same she
should so some such than that the their theirs them then there these they this those through
to too under until up very was we were what when where which while who whom why will with
would you your yours according said says say
der die das und ist ein eine nicht zu den mit von im des le la les et est un une du en
el los las y es del por para il di che e
"""
_STOP_WORDS = frozenset(_STOP_WORD_TEXT.split())
# A word: letters and digits of any script; CJK ideographs and kana count one by one, since
# those scripts write no spaces between words.
_WORD = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|[^\W_]+(?:[.'\u2019-][^\W_]+)*"
)


_NON_ASCII = re.compile(r"[^\x00-\x7f]")

_local = threading.local()  # a PyStemmer stemmer is not safe to share between threads


def _stemmer() -> Any:
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        import Stemmer  # loaded on first use: `import router` stays light

        stemmer = _local.stemmer = Stemmer.Stemmer("english")
    return stemmer


def _fold(text: str) -> str:
    """Case-folded, accents dropped (NFKD without combining marks); ASCII passes as is."""
    folded = text.casefold()
    if folded.isascii():
        return folded
    decomposed = unicodedata.normalize("NFKD", folded)
    # The marks are looked up once per distinct character, and only among the characters
    # outside ASCII (none in it is a mark), which one regex scan picks out.
    marks = {ord(c): None for c in set(_NON_ASCII.findall(decomposed)) if unicodedata.combining(c)}
    return decomposed.translate(marks) if marks else decomposed


# Stems of the words met so far, shared by every reply: vocabulary recurs across replies, as
# hosts do for extract's own caches. Bounded: when full it is replaced by an empty one (a thread
# still reading the old one keeps it whole).
_STEM_MEMO_SIZE = 65_536
_stems: list[dict[str, str]] = [{}]  # the memo in a box: replaced when full


def _stemmed(words: set[str]) -> frozenset[str]:
    """The stems of ``words``: from the memo, the words it lacks stemmed in one call."""
    memo = _stems[0]
    missing = words.difference(memo)
    if missing:
        if len(memo) + len(missing) > _STEM_MEMO_SIZE:
            memo = _stems[0] = {}
            missing = words
        fresh = list(missing)
        memo.update(zip(fresh, _stemmer().stemWords(fresh), strict=True))
    return frozenset(map(memo.__getitem__, words))


@lru_cache(maxsize=4096)
def content_words(text: str) -> frozenset[str]:
    """The stemmed, folded content words of ``text`` (stop words dropped).

    Memoised: a passage quoted for several claims, or a reply verified again, is read once.
    """
    folded = _fold(text)
    # Words never hold whitespace: the text is cut at it in one call, and a piece of ASCII
    # letters and digits alone is one word. Only the other distinct pieces (punctuation, other
    # scripts) go to the word pattern, all in one scan.
    pieces = set(folded.split())
    words = set(filter(str.isalnum, pieces if folded.isascii() else filter(str.isascii, pieces)))
    if len(words) < len(pieces):
        words.update(_WORD.findall(" ".join(pieces - words)))
    words = words - _STOP_WORDS  # not -=: that walks all the stop words, this the text's words
    return _stemmed(words) if words else frozenset()


def lexical(claim: str, passage: str) -> float:
    """The share of the claim's content words that the passage holds, in [0, 1].

    Stemmed with the Snowball English stemmer (PyStemmer), case- and accent-folded.
    A claim with no content word scores 0: there is nothing the passage could back.
    """
    wanted = content_words(claim)
    if not wanted:
        return 0.0
    return len(wanted & content_words(passage)) / len(wanted)


def provider_confidence(claim: str, passage: str) -> float:
    """The provider's own confidence for the attribution, which ``verify`` passes as ``passage``.

    ``verify`` recognises this scorer and calls it with the attribution's ``confidence``
    written as a number; an attribution without one has nothing to compare with.
    """
    del claim
    try:
        value = float(passage)
    except ValueError:
        return 0.0
    return 0.0 if math.isnan(value) else min(1.0, max(0.0, value))
