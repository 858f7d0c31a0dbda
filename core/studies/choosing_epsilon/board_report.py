"""The board's report on an ε for a table release: page 1 names the decision and sets three options side by side;
the caveats in plain words; the technical details on the pages after.

Built from :func:`core.studies.choosing_epsilon.table_epsilon.decide` (and the measured ladder when one ran). Page 1 uses no term it
does not explain: the attack's success is said as "tells a person's yes from no … of the time (50% is guessing)",
never as a bare AUC; the technical section names the AUC and defines it. Self-contained HTML (plotly.js inlined,
no network), printable to PDF: the technical section starts on its own page.
"""
from __future__ import annotations

import datetime as _dt
import html

from ...output import plain_language as say
from .ladder_reading import sentences
from .table_epsilon import summary_sentence

CSS = """body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;margin:1.5em auto;
color:#1a1a1a;line-height:1.4}h1{font-size:1.5em;margin:.2em 0}.decision{font-size:1.05em}
.options{display:grid;grid-template-columns:repeat(3,1fr);gap:10px;margin:.8em 0}
.option{border:1px solid #888;border-radius:6px;padding:8px 10px;font-size:.92em}.option h2{font-size:1.1em;margin:0 0 .3em}
.option.rec{border:3px solid #2e7d32}.option dt{font-weight:600;margin-top:.35em}.option dd{margin:0}
.caveats{font-size:.9em;border-top:1px solid #ccc;margin-top:.6em}.caveats li{margin:.15em 0}
table{border-collapse:collapse;font-size:.85em}td,th{border:1px solid #bbb;padding:3px 6px;text-align:left}
@media print{body{max-width:none;margin:0;font-size:11px}.technical{break-before:page}.options{gap:6px}}"""


def _deployments(rows: list[dict]) -> str:
    if not rows:
        return "none in the registry"
    return "; ".join(f"{r['organisation']}, {r['product']} ({r['year']}): ε = {r['epsilon']:.3g} per {r['unit']}"
                     for r in rows)


def _option_html(o: dict, d: dict) -> str:
    verdicts = []
    verdicts.append("meets your count error" if o["meets_accuracy"] else "misses your count error")
    verdicts.append("meets your attack tolerance" if o["meets_privacy"] else "exceeds your attack tolerance")
    title = {"below": "Option A: more protection", "recommended": "Option B: recommended",
             "above": "Option C: more accuracy"}[o["label"]]
    rel = (f" ({100 * o['relative_error']:.0f}% of a typical count of {d['typical_count']:g})"
           if o.get("relative_error") is not None else "")
    parts = [f"<section class='option{' rec' if o['label'] == 'recommended' else ''}'><h2>{title}</h2><dl>",
             f"<dt>Privacy loss per person</dt><dd>ε = {o['epsilon_per_person']:.3g} per person "
             f"({o['epsilon_per_cell']:.3g} per table cell × {o['cells_per_person']} cells one person is in)</dd>",
             f"<dt>What an attacker can learn</dt><dd>{html.escape(o['attack_words'])}.</dd>",
             f"<dt>Odds</dt><dd>{html.escape(o['odds'])}</dd>",
             f"<dt>Count error</dt><dd>off by {o['error_mean']:.2g} on average{rel}; within ±{o['error_bound']:g} "
             f"for {say.pct(d['confidence'])} of counts.</dd>",
             f"<dt>Against your tolerances</dt><dd>{', '.join(verdicts)}.</dd>",
             f"<dt>Closest comparable deployments</dt><dd>{html.escape(_deployments(o['deployments']))}</dd>",
             "</dl></section>"]
    return "".join(parts)


def caveats(d: dict, uploaded: bool = False) -> list[str]:
    data = ("The measurements used your uploaded file." if uploaded else
            "The census blocks are synthetic, drawn from published national distributions: the numbers are "
            "illustrative of blocks like these, not measurements of your own tables.")
    return [data,
            "The guarantee (“no attack can …”) holds for any attacker, however much they know; it assumes the "
            "noise is drawn as stated and the privacy loss is added up over every cell a person is in.",
            "The measured attack (where shown) is one known attack, DeSIA: it knows the published counts, the "
            "public attributes of the person it targets, and a sample of similar people. A stronger attack may "
            "exist; none can pass the guarantee.",
            f"“Cells one person is in” ({d['cells_per_person']}) counts the released cells one person's record "
            "can change; releasing more tables raises it, and the privacy loss per person with it."]


def board_html(d: dict, title: str | None = None, uploaded: bool = False, figure=None) -> str:
    """The report: page 1 (decision, three options, caveats), then the technical details."""

    title = title or "Which privacy-loss level (ε) to approve for the census block tables"
    now = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    script = ""
    if figure is not None:
        from plotly.offline import get_plotlyjs  # lazy: start-up time (plotly.js's 4.7 MB text, only with a figure)

        script = f"<script type='text/javascript'>{get_plotlyjs()}</script>"
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
             f"<style>{CSS}</style>{script}</head><body><main>", f"<h1>{html.escape(title)}</h1>",
             "<p class='decision'><strong>The decision:</strong> how much privacy loss per person (ε) to allow "
             "when publishing noisy counts — smaller ε protects people more and makes counts less accurate. "
             f"{html.escape(summary_sentence(d))}</p>",
             "<div class='options'>" + "".join(_option_html(o, d) for o in d["options"]) + "</div>",
             "<section class='caveats'><strong>Caveats in plain words</strong><ul>"
             + "".join(f"<li>{html.escape(c)}</li>" for c in caveats(d, uploaded)) + "</ul></section>",
             "<section class='technical'><h2>Technical details</h2>",
             "<p>Attack success is measured as the AUC (area under the ROC curve): the chance that the attack "
             "scores a person whose secret is “yes” above one whose secret is “no”; 0.5 is guessing, 1 is always "
             "right. ε-differential privacy caps it for every attack; the cap is computed for one test at the "
             "per-person ε.</p>",
             f"<p>Tolerances: counts within ±{d['abs_error']:g} for {say.pct(d['confidence'])} of cells; attack "
             f"success at most {0.5 + d['advantage']:.2f} (an advantage of {100 * d['advantage']:g} points over "
             f"guessing). Accuracy needs ε ≥ {d['epsilon_accuracy']:.3g} per person; the attack tolerance allows "
             f"ε ≤ {d['epsilon_privacy']:.3g} per person.</p>",
             "<p>Noise: each published count is round(true count + Laplace(1/ε per cell)); the error exceeds an "
             "integer E with probability exp(−ε per cell × (E + ½)). ε per person = ε per cell × cells one person "
             "is in (basic composition).</p>"]
    ladder = d.get("ladder")
    if ladder and ladder.get("rows"):

        parts.append("<h3>Measured attack (ε ladder)</h3><table><tr><th>ε per person</th><th>ε per cell</th>"
                     "<th>AUC</th><th>95% interval</th><th>DP cap</th></tr>")
        for r in ladder["rows"]:
            if r.get("attack") is None:
                continue
            parts.append(f"<tr><td>{(r.get('epsilon_per_person') or 0):.3g}</td><td>{r['epsilon']:g}</td>"
                         f"<td>{r['attack']:.3f}</td><td>{r['attack_ci_low']:.3f} – {r['attack_ci_high']:.3f}</td>"
                         f"<td>{'' if r.get('bound') is None else format(r['bound'], '.3f')}</td></tr>")
        parts.append("</table>" + "".join(f"<p>{html.escape(s)}</p>" for s in sentences(ladder)))
    if figure is not None:
        parts.append(figure.to_html(full_html=False, include_plotlyjs=False, div_id="decision",
                                    config={"displaylogo": False}))
    parts.append(f"<p>Written {now}.</p></section></main></body></html>")
    return "".join(parts)
