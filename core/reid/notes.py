"""What each lecture demo shows, in words a privacy-course student understands (CS208 lecture 2 slides).

Like a scenario's ``summary``: the page prints these above each demo; the engine keeps them next to the
code they describe so the numbers quoted here (87%, 63%, φ = 1.5, eccentricities 28 and 15, n/10) stay
tied to the slides.
"""

DEMOS = {
    "link": (
        "**Slide “Reidentification via Linkage” [Sweeney ’97].** A hospital releases its records without "
        "names but with *quasi-identifiers* (QIs) such as ZIP, birth date and sex. A public list with names "
        "and the same QIs (a voter roll) is joined on the QIs: whoever is the only person with their QI "
        "values in both tables gets their name back — and their diagnosis with it. Sweeney found 87% of "
        "Americans unique on {5-digit ZIP, sex, date of birth} (Golle ’06: 63%); the slide says “> 60%”."),
    "kanon": (
        "**Slides “K-Anonymity [Sweeney ’02]” and “Quasi-Identifiers”.** A generalisation replaces each value"
        " by a set containing it (91010 → 9101*, \\$125k → \\$75–150k, 37 → 30–39, "
        "anything → \\*). The output "
        "is *k-anonymous* when every combination of generalised QI values occurs at least k times. The "
        "slide’s question about the Condition table — *what could go wrong?* — is the **homogeneity attack**:"
        " a class whose members all share one sensitive value discloses it for everyone known to be in the "
        "class (the fix, *l-diversity*, is from Machanavajjhala et al. ’06, not on the slides)."),
    "netflix": (
        "**Slides “Netflix Challenge Re-identification” [Narayanan & Shmatikov ’08].** *What if there are no "
        "quasi-identifiers?* In sparse data — who rated which of thousands of films, when — almost every "
        "record is unique. The attacker scores every released record against a few ratings it knows (aux, "
        "e.g. from IMDb), weighting rare films more (w = 1/log #raters), and names the best record only if it"
        " stands out: (s₁ − s₂)/σ > φ, the *eccentricity* (slide: φ = 1.5). On the real data two of 50 IMDb "
        "users stood out with eccentricities 28 and 15. Here: a synthetic 4,000 × 2,000 ratings matrix with "
        "long-tailed popularity."),
    "diff": (
        "**Slide “Attacks on Aggregate Statistics”.** Person i has a secret bit x_i; the curator answers "
        "counts q_S(x) = Σ_{i∈S} x_i for sets S the attacker chooses. Refusing small sets (|S| < n/10) does "
        "not help: **x_i = q(S ∪ {i}) − q(S)** for any large S without i, or **x_i = q([n]) − q([n] ∖ {i})**."
        " All n bits fall with 2n (or n + 1) queries ([Ziv ’13]: used against the Israeli census bureau)."),
    "exact": (
        "**Slides “Attacks on Exact Releases” and “Example for n = 5”.** Publishing exact counts of "
        "innocuous-looking subsets is publishing linear equations M x = a in the secret bits. The slide's "
        "five equations have one solution: solve them (linear algebra) or try all 2⁵ = 32 bit vectors (brute "
        "force). Edit the system to see when it stops being unique."),
}
