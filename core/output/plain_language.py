"""Plain-language reading of results, and the glossary, for readers who are not privacy researchers.

Each lab page shows ONE sentence above its plots saying what the current result means for a release
("with these settings an attacker recovers 98% of the secret bits, against 50% by guessing"). The
sentences are built here, from the numbers of a result, so they are testable and every page phrases
them alike. Technical words link to the glossary page: ``term("auc")`` gives ``[AUC](/Glossary#auc)``.
The glossary itself is ``content/glossary.md`` (one ``## Term {#slug}`` section per term).
"""
from __future__ import annotations

import functools
import math
import re
from pathlib import Path

from ..basics.words import count, pct

GLOSSARY_FILE = Path(__file__).resolve().parents[2] / "content" / "glossary.md"
GLOSSARY_PAGE = "/Glossary"
_HEADING = re.compile(r"^## (?P<term>.+?)(?:\s*\{#(?P<slug>[a-z0-9-]+)\})?\s*$")


# ------------------------------------------------------------------ glossary
def slug(term: str) -> str:
    """Anchor of a term: lower case, runs of other characters become one '-' (``"TPR @ FPR"`` → ``tpr-fpr``)."""
    return re.sub(r"[^a-z0-9]+", "-", term.lower()).strip("-")


@functools.lru_cache(maxsize=1)
def glossary() -> tuple[tuple[str, str, str], ...]:
    """``(term, slug, definition)`` for every ``## Term {#slug}`` section of content/glossary.md."""
    entries, term, anchor, body = [], None, None, []
    for line in GLOSSARY_FILE.read_text(encoding="utf-8").splitlines():
        match = _HEADING.match(line)
        if match:
            if term:
                entries.append((term, anchor, "\n".join(body).strip()))
            term, body = match["term"].strip(), []
            anchor = match["slug"] or slug(term)
        elif term:
            body.append(line)
    if term:
        entries.append((term, anchor, "\n".join(body).strip()))
    return tuple(entries)


def glossary_intro() -> str:
    """The text before the first term."""
    text = GLOSSARY_FILE.read_text(encoding="utf-8")
    return text.split("\n## ", 1)[0].strip()


def term(anchor: str, text: str | None = None) -> str:
    """Markdown link to a glossary entry: ``term("auc")`` → ``[AUC](/Glossary#auc)``.

    Raises ``KeyError`` for an unknown anchor, so a typo fails in tests, not silently on a page.
    """
    names = {a: t for t, a, _ in glossary()}
    if anchor not in names:
        raise KeyError(f"no glossary entry #{anchor}; known: {', '.join(sorted(names))}")
    shown = text if text is not None else re.sub(r"\s*\(.*\)$", "", names[anchor])
    return f"[{shown}]({GLOSSARY_PAGE}#{anchor})"


# ------------------------------------------------------------------ numbers in words
VOID = 0.99  # a cap on the attacker's success at or above this guarantees practically nothing


def cap(bound: float, what: str = "guess right") -> str:
    """What a DP cap on an attacker's success says, meaningful at any ε: below :data:`VOID` 'no attack can
    {what} more than 73% of the time'; above it, that the guarantee is practically void, with the number."""
    if bound >= VOID:
        return (f"the guarantee is practically void: it still allows an attacker to {what} up to {pct(bound)} of "
                "the time")
    return f"no attack can {what} more than {pct(bound)} of the time"


def _ok(x) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def _verdict(acc: float, baseline: float, ci_low: float | None = None,
             worst: str = "the release gives the secrets away") -> str:
    """How far above guessing, in words."""
    if ci_low is not None and ci_low <= baseline:
        return "no better than guessing, within the margin of error: this release protected these people"
    gain = acc - baseline
    if gain < 0.05:
        return "barely better than guessing"
    if acc >= 0.95:
        return worst
    if gain < 0.2:
        return "a real but partial leak"
    return "a serious leak"


# ------------------------------------------------------------------ one sentence per lab
def epsilon_explorer(epsilon: float, k: int, accuracy_1: float, accuracy_k: float) -> str:
    """ε explorer: what the chosen ε allows at most, for one release and for k releases."""
    if accuracy_1 >= VOID:
        text = (f"At ε = {epsilon:g} per release the guarantee is practically void: it still allows an attacker "
                f"to tell whether a person is in the data right up to {pct(accuracy_1)} of the time from one "
                "release (a coin flip gets 50%)")
    else:
        text = (f"At ε = {epsilon:g} per release, no attacker can tell whether a person is in the data right more "
                f"than {pct(accuracy_1)} of the time from one release (a coin flip gets 50%)")
    if k > 1:
        text += f"; after {k} releases about the same person, up to {pct(accuracy_k)}"
    worry = accuracy_k >= 0.9
    return text + (" — little protection left." if worry else ".")


def reconstruction(metrics: dict) -> str:
    """Reconstruction: bits recovered against the majority guess."""
    acc, base = metrics.get("accuracy"), metrics.get("majority_baseline")
    if not (_ok(acc) and _ok(base)):
        return ""
    text = (f"With these settings an attacker recovers {pct(acc)} of the secret bits, against {pct(base)} by "
            f"guessing the most common value — {_verdict(acc, base, metrics.get('accuracy_ci_low'))}.")
    eps = metrics.get("release_epsilon")
    if eps is None or (isinstance(eps, float) and math.isinf(eps)):
        text += " The release has no differential-privacy guarantee."
    return text


def reconstruction_preview(theory: dict) -> str:
    """Reconstruction before any game: what the closed forms (:func:`core.scenarios.reconstruction.theory_curves`)
    say about the chosen setting."""
    c = theory["chosen"]
    n, m = theory["n"], theory["m"]
    text = (f"Before any game: {count(n, 'person', 'people')}, {count(m, 'query', 'queries')}; guessing the more "
            f"common value for everyone scores about {pct(theory['majority'])}.")
    if theory["defense"] == "none" and theory["queries"] == "random-subsets":
        text += (" With exact answers and m ≥ n random queries the counts determine every bit: expect 100%."
                 if m >= n else
                 f" With exact answers but fewer queries than people (m < n) the counts leave {n - m} directions "
                 "free: some bits stay undetermined.")
    elif _ok(c.get("ls")):
        text += (f" At the chosen noise (error std {c['noise_over_sqrt_n']:.2g}·√n) least squares should recover "
                 f"about {pct(c['ls'])} of the bits.")
    if _ok(c.get("dp_bound")):
        text += (f" The Gaussian noise makes the release differentially private (ε ≈ {c['epsilon']:.3g} at "
                 f"δ = {c['delta']:.0e} per person): "
                 + (f"no attacker, however strong, can expect more than {pct(c['dp_bound'])} of the bits."
                    if c["dp_bound"] < VOID else f"the guarantee is practically void: it still allows an attacker "
                    f"{pct(c['dp_bound'])} of the bits."))
    elif theory["defense"] in ("rounding", "subsample"):
        text += " This defence carries no differential-privacy guarantee, so no bound caps the attack."
    return text


def aggregates_preview(preview: dict) -> str:
    """Aggregate statistics before any attack: who is attacked and what the release can reveal about them
    (:func:`core.scenarios.aggregates.block_preview`)."""
    p = preview
    blocks = count(p["blocks"], "block")
    per_block = max(1, p["releases"] // max(1, p["blocks"]))
    people = p["targets"] // per_block
    releases = "" if per_block == 1 else f", each attacked in {per_block} independent releases"
    text = (f"Before any attack: {count(people, 'target')} — the people unique on every column except "
            f"{p['sensitive']} — in {blocks} of {count(p['block_size'], 'person', 'people')}{releases}, "
            f"with {count(p['cells'], 'released cell')} per release.")
    if p["task"] == "mia":
        text += " The attacker guesses whether a target's record is in the block: 50% by chance."
    else:
        where = "the block" if p["blocks"] == 1 else "the blocks"
        share = f" ({pct(p['sensitive_share'])} of {where} now Hispanic)" if p["sensitive"] == "Hispanic" else ""
        text += f" Their {p['sensitive']} values were re-drawn by a coin flip{share}, so guessing scores 50%."
        if p["untouched"]:
            who = (count(p["untouched"], "target") if per_block == 1 else
                   f"{p['untouched']:,} of the {p['targets']:,} target-release pairs")
            text += f" For {who} no released cell depends on that value: no attack can beat the coin on them."
    claim = ""
    if p.get("claimed"):
        eps = p["claimed"]["epsilon"]
        cap = 1.0 / (1.0 + math.exp(-eps))
        claim = f"the release's DP claim is ε = {eps:.3g} per person"
        if cap > 0.99:
            claim += f", which allows up to {100 * cap:.6g}% accuracy on the most exposed person: hardly a guarantee"
    if p.get("bound"):
        text += (f" With Laplace noise of ε = {p['epsilon']:g} per cell, no attack can average more than "
                 f"{pct(p['bound']['mean'])} right over these targets" + (f"; {claim}." if claim else "."))
    elif claim:
        text += f" {claim[0].upper()}{claim[1:]}."
    return text


def location(metrics: dict, k: int, epsilon: float | None = None) -> str:
    """Location membership: accuracy of the headline attack against chance and the DP bound, at the ε in force."""
    acc, bound = metrics.get("accuracy"), metrics.get("dp_bound_accuracy")
    if not _ok(acc):
        return ""
    where = f"At ε = {epsilon:g} per observation, an attacker" if _ok(epsilon) else "With these settings an attacker"
    text = (f"{where} who sees {k} of a person's check-ins guesses whether that person "
            f"is in the released counts right {pct(acc)} of the time, against 50% by chance — "
            f"{_verdict(acc, 0.5, metrics.get('accuracy_ci_low'), 'membership is all but revealed')}")
    if _ok(bound):
        text += ("; differential privacy guarantees that no attack exceeds " + pct(bound) if bound < VOID else
                 f"; differential privacy allows up to {pct(bound)}: at this ε its guarantee is practically void")
    return text + "."


def synthetic_preview(preview: dict) -> str:
    """Synthetic data before any game: what the attacker knows, who can be a target and what caps the attack
    (:func:`core.scenarios.synthetic.data_preview`)."""
    p = preview
    qis = list(p["order"])  # most identifying first, as on the chart
    shown = ", ".join(qis[:4]) + (f" and {len(qis) - 4} more" if len(qis) > 4 else "")
    steps = next((i + 1 for i, v in enumerate(p["unique_share"]) if v >= 0.9), None)
    text = (f"Before any game: the generator is fitted on n = {p['n']:,} of the {p['records']:,} records. The "
            f"attacker knows every record's {count(len(qis), 'quasi-identifier')} ({shown}) and the synthetic data; "
            f"in game 1, {p['targets']:,} of the {p['n']:,} records are unique on them — the possible targets")
    if steps is not None and steps < len(qis):
        text += f" ({steps} well-chosen columns already single out 90%)"
    text += (f". The target's `{p['secret']}` ({p['secret_values'][-1]} for {pct(p['secret_share'])} of all "
             "records) is re-drawn by a coin flip before the generator sees it, so guessing wins 50%.")
    if p["dp"]:
        text += (f" {p['generator']} is differentially private at ε = {p['epsilon']:g}"
                 + (f", δ = {p['delta']:.0e}" if p.get("delta") else "")
                 + f": {cap(p['bound'], 'guess the target right')}, whatever the synthetic size.")
    else:
        text += f" {p['generator']} gives no differential-privacy guarantee: nothing caps the attack in advance."
    return text


def linkage(metrics: dict) -> str:
    """Linkage with a voter list: how many released records get a name, and how many names are right."""
    n = metrics.get("n_reidentified")
    correct, prec = metrics.get("pct_correct"), metrics.get("precision")
    unique = metrics.get("pct_unique_release")
    if not _ok(n):
        return ""
    text = f"{_num(unique)}% of the released records are unique on these columns; " if _ok(unique) else ""
    text += f"joining with the voter list puts a name on {int(n):,} of them"
    if _ok(correct):
        text += f" ({_num(correct)}% of all released records named correctly"
        text += f", {pct(prec)} of the names right)" if _ok(prec) else ")"
    return text[0].upper() + text[1:] + "."


def k_anonymity(k: int, min_class: int, passes: bool, n_homogeneous_records: int | None,
                sensitive: str | None) -> str:
    """k-anonymity: does the release pass, and who is still exposed by homogeneity."""
    text = (f"The release is {k}-anonymous: every record hides among at least {min_class} look-alikes"
            if passes else f"The release is NOT {k}-anonymous: some record hides among only {min_class}")
    if sensitive and n_homogeneous_records:
        text += (f"; yet the {sensitive} of {n_homogeneous_records:,} people is disclosed anyway, because everyone "
                 "in their group shares it")
    elif sensitive:
        text += f", and no group shares a single {sensitive} value"
    return text + "."


def netflix(matched: bool, correct: bool, target_released: bool) -> str:
    if not matched:
        return ("The attacker's few known ratings do not single out one record here: no match is claimed"
                + (", although the target is in the release." if target_released else "."))
    if correct:
        return "A handful of known ratings and approximate dates picks out the target's record among all users."
    return "The attacker claims a match, but it is the wrong person: a false re-identification."


def differencing(pct_recovered: float, smallest_query: int) -> str:
    return (f"Although every query covers at least {smallest_query:,} people, subtracting two answers recovers "
            f"{_num(pct_recovered)}% of the secret bits exactly.")


def exact_reconstruction(n_solutions: int, n: int) -> str:
    if n_solutions == 1:
        return f"These exact answers leave a single possible dataset: all {n} secrets are recovered."
    if n_solutions == 0:
        return "No dataset fits every answer: the answers are inconsistent (or not exact)."
    return f"{n_solutions} different datasets fit every answer: the secrets are not fully pinned down yet."


def relational(passes: bool, guess, truth: bool) -> str:
    if guess is None:
        return "Both possible releases look alike here, so an observer learns nothing about Salil."
    right = "correctly" if guess == truth else "wrongly"
    return (f"The release is {'k-anonymous' if passes else 'not even k-anonymous'}, yet an observer who knows "
            f"the anonymiser {right} reads off whether Salil has tuberculosis.")


def relational_status(k: int, passes: bool, smallest: int, other_passes: bool, other_smallest: int,
                      world: str, other_world: str) -> str:
    """Both worlds' k-anonymity in plain words: this release's verdict and smallest group, then the other world's,
    so "2-anonymous … (4)" no longer reads as a contradiction."""
    def verdict(ok: bool, n: int, also: bool = False) -> str:
        status = (("also " if also else "") + f"{k}-anonymous") if ok else f"NOT {k}-anonymous"
        return f"{status} (its smallest group of identical-looking records has {count(n, 'person', 'people')})"

    other = verdict(other_passes, other_smallest, passes and other_passes)
    text = (f"The release (the world where {world}) is {verdict(passes, smallest)}. The release the other world "
            f"(where {other_world}) would produce is {other}")
    return text + (": both pass the test." if passes and other_passes else ".")


def downcoding(n_exact: int, pct_refined: float) -> str:
    return (f"Knowing only that the anonymiser is minimal, the attacker recovers {n_exact} generalised cell(s) "
            f"exactly and narrows down {_num(pct_refined)}% of the records.")


def composition(pct_unique_joined: float, pct_not_k_joined: float, k: int) -> str:
    return (f"Each release alone is {k}-anonymous, but joining the two makes {_num(pct_unique_joined)}% of "
            f"learners unique and {_num(pct_not_k_joined)}% no longer {k}-anonymous.")


def _num(x: float) -> str:
    return f"{x:.1f}" if x < 10 else f"{x:.0f}"


def interval_caution(accuracy, low, high, chance, what: str = "the attack",
                     advice: str = "Use more records or a larger group.") -> str | None:
    """One caution where an accuracy's 95% interval does not lie above the ``chance`` accuracy of always
    guessing the most common value, else None: either the interval contains it (too few games or records to
    tell ``what`` from that guess; ``advice`` says what to do), or the whole interval lies below it (``what``
    is worse than that guess, which more games would only confirm; a skewed secret such as one value held
    by 93% of people does this to an attack that spreads its guesses over the values)."""
    if any(v is None or v != v for v in (accuracy, low, high, chance)):
        return None
    if low > chance:
        return None
    if high < chance:
        return (f"The accuracy of {accuracy:.1%} (95% confidence interval {low:.1%} – {high:.1%}) is below the "
                f"{chance:.1%} of guessing the most common value for everyone: on these data {what} does worse "
                "than that simple guess.")
    return (f"The accuracy of {accuracy:.1%} has a 95% confidence interval of {low:.1%} – {high:.1%}, which "
            f"reaches the {chance:.1%} of guessing the most common value: too wide to say how well {what} works. "
            + advice)


# ------------------------------------------------------------------ ε in plain words (odds, accuracy, samples)
def prior_words(prior: float) -> str:
    """0.5 → "it's 50/50"; 0.1 → "there is a 10% chance"."""
    prior = float(prior)
    if abs(prior - 0.5) < 1e-9:
        return "it's 50/50"
    return f"there is a {pct(prior)} chance"


def one_in(x: float) -> str:
    """1e-5 → '1 in 100,000' (for small probabilities such as δ)."""
    x = float(x)
    if x <= 0:
        return "no chance"
    n = 1.0 / x
    return f"1 in {n:,.0f}" if n >= 10 else pct(x)


def odds_sentence(epsilon: float | None, delta: float = 0.0, prior: float = 0.5,
                  subject: str = "a person is in the data") -> str:
    """The odds sentence for any ε (input or measured): the attacker's best belief after the release,
    from :func:`core.theory.odds.posterior_bound`; with δ > 0 also the chance of an outright give-away."""
    # lazy: start-up time (scipy only when used)
    from ..theory.odds import posterior_bound

    if epsilon is None or not math.isfinite(float(epsilon)):
        return ("This release claims no ε: nothing limits how sure an attacker can become about whether "
                f"{subject}.")
    post = posterior_bound(float(epsilon), prior, delta)
    text = (f"An attacker who thinks {prior_words(prior)} that {subject} can be at most {pct(post)} sure after "
            f"seeing this release")
    if delta and delta > 0:
        text += f" — except with a chance of at most {one_in(delta)} (δ) that the release gives the person away"
    return text + "."


def odds_short(epsilon: float | None, delta: float = 0.0) -> str:
    """Compact form for captions beside a number: 'ε = 1: 50/50 → at most 73% sure'."""
    # lazy: start-up time (scipy only when used)
    from ..theory.odds import posterior_bound

    if epsilon is None or not math.isfinite(float(epsilon)):
        return "no ε: no limit on the attacker's certainty"
    text = f"ε = {float(epsilon):.3g}: 50/50 → at most {pct(posterior_bound(float(epsilon), 0.5, delta))} sure"
    return text + (f" (except {one_in(delta)})" if delta and delta > 0 else "")


def equivalent_sample_sentence(fraction: float, what: str = "The noise costs") -> str:
    """'The noise costs about as much accuracy as publishing a 12% random sample of the data.'"""
    fraction = float(fraction)
    if fraction >= 0.995:
        return f"{what} about as much accuracy as publishing (almost) all of the data: hardly any."
    if fraction <= 0.001:
        return (f"{what} more accuracy than publishing a 0.1% random sample of the data: the counts "
                "carry little signal.")
    return f"{what} about as much accuracy as publishing a {pct(fraction)} random sample of the data."


def accuracy_first_sentence(error: float, share: float, sensitivity: float, eps_laplace: float,
                            eps_gaussian: float, delta: float) -> str:
    """'Counts within ±10 for 95% of queries need ε ≥ 0.30 (Laplace) or … (Gaussian) — at that ε …'"""
    return (f"To keep counts of sensitivity {sensitivity:g} within ±{error:g} for {pct(share)} of queries you need "
            f"ε ≥ {eps_laplace:.3g} with Laplace noise, or ε ≥ {eps_gaussian:.3g} (δ = {delta:g}) with Gaussian "
            f"noise. {odds_sentence(eps_laplace)}")


def ml_seed_spread(metrics: dict, series: dict) -> str:
    """ML models: how much the targeted accuracy and the ranking's Kendall τ move between target models trained
    with different seeds on the same data (one published number is one such draw)."""
    seeds = series.get("seeds") or {}
    n = len(seeds.get("accuracy", []))
    if n == 0:
        return ""
    epochs = ", ".join(str(e) for e in seeds.get("epochs", []))
    if n == 1:
        return ("One target model was trained, so its targeted accuracy and τ are a single draw: raise "
                "*Target-model seeds* to see their spread. (The paper's 81.6% targeted accuracy at κ = 0.1 on "
                "Adult is one seed; the authors' code gives 68.1 ± 9.1% over four.) "
                f"Epochs trained: {epochs}.")
    m = metrics
    ta = [v for v in seeds["targeted_accuracy"] if v == v]
    text = f"Over {count(n, 'target-model seed')} (same data, different training seeds): "
    if ta and _ok(m.get("targeted_accuracy_mean")):
        text += (f"targeted accuracy **{100 * m['targeted_accuracy_mean']:.1f} ± "
                 f"{100 * m['targeted_accuracy_sd']:.1f}%** (s.d.; from {100 * min(ta):.1f} to "
                 f"{100 * max(ta):.1f}), ")
    text += (f"untargeted {100 * m['accuracy_mean']:.1f} ± {100 * m['accuracy_sd']:.1f}%, ranking Kendall τ "
             f"**{m['kendall_disparity_mean']:.2f} ± {m['kendall_disparity_sd']:.2f}**. Epochs trained: {epochs}.")
    return text
