"""What people look at: the terminal block of an answer and the self-contained HTML report.

:mod:`router.render.view` reads serialised responses (plain dicts, so any saved file works,
from before or after attributions and verification existed) into what both show;
:mod:`router.render.terminal_block` prints an answer with ``[n]`` markers and its numbered
sources; :mod:`router.render.report_input` reads batch output, ``route --json-output``,
``extract --json`` and ``compare --json`` files into report rows; :mod:`router.render.html`
writes the one-file HTML report. Nothing here imports rich or jinja2 until it renders.
"""
