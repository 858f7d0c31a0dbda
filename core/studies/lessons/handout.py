"""A lesson's printable handouts, each one self-contained HTML file (no server, no network): the students' handout
(the steps, their prompts and empty boxes for the predictions: nothing measured) and, as a separate file, the
teacher's key (the measurements at the lesson's seed, the reveals and the reference runs' plots). A student's
handout never carries an answer, so it can go out before the lesson.

The lesson's text is the teacher's Markdown; only a small, escaped subset is rendered (paragraphs, **bold**,
*italics*, links to the glossary), so nothing in a lesson file can inject markup into the page.
"""
from __future__ import annotations

import html
import re
import time

from .lesson_grading import fill, reveal_numbers, truth_text
from .lesson_plots import step_figure
from .lesson_runs import measured
from .lesson_files import Lesson
from .lesson_runs import step_config
from .lesson_files import runner

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 52rem; margin: 2rem auto;
       padding: 0 1rem; color: #1b1b1b; line-height: 1.45; }
h1 { margin-bottom: 0.2rem; } .source { color: #444; font-size: 0.95rem; }
.step { border-top: 2px solid #ccc; padding-top: 0.6rem; margin-top: 1.4rem; page-break-inside: avoid; }
.prompt { font-weight: 600; }
.answer { border: 1px solid #555; border-radius: 4px; height: 2.4rem; width: 14rem; margin: 0.4rem 0 1rem; }
.options li { margin: 0.2rem 0; }
.missing { color: #6b4e00; background: #fff4d6; padding: 0.4rem; }
@media print { .plot { page-break-inside: avoid; } a { color: inherit; text-decoration: none; } }
"""


def _md(text: str) -> str:
    """Escaped text with the lesson files' small Markdown subset: paragraphs, **bold**, *italics*, [links](url)."""
    out = html.escape(text)
    out = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", out)
    out = re.sub(r"(?<![*\w])\*(?!\s)(.+?)(?<!\s)\*(?![*\w])", r"<em>\1</em>", out)
    out = re.sub(r"\[([^\]]+)\]\((/[^)\s]*)\)", r"<a href=\"\2\">\1</a>", out)  # site links only (the glossary)
    return "".join(f"<p>{p}</p>" for p in out.split("\n\n") if p.strip())


def _answer_block(step) -> str:
    p = step.predict
    if p.kind == "choice":
        items = "".join(f"<li>☐ {html.escape(o.label)}</li>" for o in p.options)
        return f'<ul class="options">{items}</ul>'
    span = f"{p.shown(p.low)} to {p.shown(p.high)}"
    return (f'<p>Your prediction ({html.escape(span)}; right within ±{html.escape(p.shown(p.tolerance))}):</p>'
            f'<div class="answer" role="presentation"></div>')


def _head(lesson: Lesson, what: str) -> list[str]:
    return [f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(lesson.title)} — "
            f"{what}</title><style>{_CSS}</style></head><body>",
            f"<h1>{lesson.order}. {html.escape(lesson.title)}</h1>",
            f"<p class=\"source\">Source: {html.escape(lesson.paper)}</p>"]


def handout_html(lesson: Lesson) -> str:
    """The students' handout of ``lesson``: every step's context and prompt with an empty box for the prediction.
    It holds no measurement, no plot of a run and no reveal (a plot of the run shows its answer, and often the
    next step's), so it can be handed out before the lesson; the answers are in :func:`teacher_key_html`."""
    parts = _head(lesson, "handout")
    parts += [_md(lesson.summary),
              "<p>For each step: read the context and write down your prediction <em>before</em> the step is run. "
              "Your teacher has the measurements.</p>"]
    for step in lesson.steps:
        parts.append(f'<section class="step"><h2>Step {step.number}. {html.escape(step.title)}</h2>')
        parts.append(_md(step.context))
        parts.append(f'<p class="prompt">{html.escape(step.predict.prompt)}</p>{_answer_block(step)}</section>')
    parts.append(f"<p class=\"source\">Made by the privacy-attack lab on {time.strftime('%Y-%m-%d', time.gmtime())}."
                 "</p></body></html>")
    return "\n".join(parts)


def teacher_key_html(lesson: Lesson, runs: dict) -> str:
    """The teacher's key of ``lesson``, a separate file from the students' handout: each step's prompt, the
    measurement at the lesson's seed (with the tolerance, or the option graded right), the reveal and the plot of
    the reference run. ``runs`` maps step numbers to those runs (a step without one gets a note)."""
    parts = _head(lesson, "teacher's key")
    if lesson.section:
        parts.append(f"<p class=\"source\">Where the numbers come from: {html.escape(lesson.section)}</p>")
    parts.append(f"<p>The measurements at the lesson's seed ({lesson.seed}): the same for every student. Keep this "
                 "key away from the students until they have committed their predictions.</p>")
    first_plot = True
    for step in lesson.steps:
        parts.append(f'<section class="step"><h2>Step {step.number}. {html.escape(step.title)}</h2>')
        parts.append(f'<p class="prompt">{html.escape(step.predict.prompt)}</p>')
        result = runs.get(step.number)
        if result is None:
            parts.append('<p class="missing">No reference run of this step was available when the key was made; '
                         "run it once on the Lessons page (or <code>python -m core lessons --handout "
                         f"{html.escape(lesson.id)} --teacher</code>) to include it.</p></section>")
            continue
        metrics = result.metrics if hasattr(result, "metrics") else result["metrics"]
        truth = measured(step, metrics)
        within = (f" (right within ±{html.escape(step.predict.shown(step.predict.tolerance))})"
                  if step.predict.kind != "choice" else "")
        parts.append(f"<p><strong>Measured:</strong> {html.escape(truth_text(step, truth))}{within}</p>")
        parts.append(_md(fill(step.reveal, reveal_numbers(step, metrics, truth))))
        fig = step_figure(step, result)
        # plotly.js is inlined once (offline); later plots reuse it
        parts.append('<div class="plot" role="img" aria-label="' + html.escape(
            f"Plot of step {step.number}: {(fig.layout.title.text or step.plot).split('<br>')[0]}")
            + '">' + fig.to_html(full_html=False, include_plotlyjs=first_plot,
                                 config={"displayModeBar": False, "staticPlot": True}) + "</div></section>")
        first_plot = False
    parts.append(f"<p class=\"source\">Made by the privacy-attack lab on {time.strftime('%Y-%m-%d', time.gmtime())}; "
                 "every number above was measured by the lab's engine at the lesson's seed.</p></body></html>")
    return "\n".join(parts)


def stored_runs(lesson: Lesson, store=None) -> dict:
    """The reference runs already in the result store (no new run): what a page can put in a handout at once."""
    # lazy: start-up time (107 modules only when used)
    from ...runtime.store import default_store, lookup

    store = store if store is not None else default_store()
    out = {}
    for step in lesson.steps:
        config = step_config(lesson, step)
        seed = config.pop("seed")
        _, hit = lookup(runner(step.runner), config, seed, store)
        if hit is not None:
            out[step.number] = hit
    return out
