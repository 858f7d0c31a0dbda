"""The runs a lesson step can make besides the lab's registered games: closed forms of what ε promises and the
re-identification demonstrations, each wrapped as a one-unit :class:`~core.scenario.Scenario` so that a lesson
plays, stores and grades them exactly like a game (seeded, validated parameters, metrics + series).

They are not registered: the lab's scenario list and pages stay as they are; only lessons (and the ``--check``)
name them. Every number comes from the engine modules they call:

* ``epsilon`` — :mod:`core.theory.epsilon_explorer`: the best membership accuracy any attack can reach against k
  releases of one person at (ε, δ) each (optimal composition, Kairouz et al. 2015), the factor ``e^ε`` by which
  one release can move an attacker's odds, the posterior that allows from a prior, Laplace noise ``1/ε``.
* ``linkage`` — :mod:`core.reid.linkage`: Sweeney's join of a de-identified release with a voter list on
  quasi-identifiers (ZIP, birth date, sex), on a synthetic town.
* ``k-anonymity`` — :mod:`core.reid.k_anonymity`: generalise a table to k-anonymity and count the records
  whose sensitive value is disclosed because their whole class shares it (the homogeneity attack,
  Machanavajjhala et al. 2007).
* ``downcoding`` — :mod:`core.reid.downcoding`: Cohen (2022): knowing the anonymiser is minimal undoes part of
  its generalisation.
"""
from __future__ import annotations

import numpy as np

from ...params import Param
from ...scenario import Scenario
from ...cost import Cost


# What the page shows for a parameter's values (a lesson never prints an engine name such as "birth_date").
_QI_LABELS = {"zip,birth_date,sex": "ZIP, birth date, sex", "zip,sex": "ZIP, sex", "birth_date,sex": "birth date, sex",
              "zip,birth_date,sex,race,marital": "ZIP, birth date, sex, race, marital status"}
_BIRTH_LABELS = {0: "full date", 1: "month and year", 2: "year", 3: "5-year band", 4: "decade", 5: "not published"}


class _Demo(Scenario):
    """A closed-form or deterministic demonstration played as one unit of work."""

    unit = ("calculation", "calculations")

    def n_games(self, config):
        return 1

    def compute(self, config: dict, rng: np.random.Generator) -> tuple[dict, dict]:
        raise NotImplementedError

    def play(self, config, context, index, rng):
        metrics, series = self.compute(config, rng)
        return {"metrics": metrics, "series": series}

    def summarize(self, config, context, records):
        return records[0]["metrics"], records[0]["series"]

    def estimate_cost(self, config):

        return Cost(seconds=1.0, bytes=50e6, basis="closed form or a small table")


class Epsilon(_Demo):
    name = "epsilon"
    title = "What ε promises"
    paper = "Dwork, McSherry, Nissim & Smith (2006); Kairouz, Oh & Viswanath (2015) for composition"
    params = (
        Param("epsilon", "float", 1.0, "privacy budget of one release", label="ε per release", low=0.05, high=10,
              step=0.05),
        Param("delta", "float", 0.0, "probability the guarantee fails", label="δ", low=0.0, high=0.01,
              high_open=True),
        Param("observations", "int", 1, "releases about the same person (composition)", label="Releases k",
              low=1, high=200),
        Param("prior", "float", 0.5, "the attacker's belief before the release that the fact is true",
              label="Prior belief", low=0.01, high=0.99, step=0.01),
    )

    def compute(self, config, rng):
        # lazy: start-up time (scipy only when used)
        from ...theory.dp_accuracy import dp_expected_accuracy_curve
        # lazy: start-up time (scipy only when used)
        from ...theory.epsilon_explorer import explain_epsilon, posterior_bound

        eps, delta, k, prior = config["epsilon"], config["delta"], config["observations"], config["prior"]
        data = explain_epsilon(eps, delta, max(k, 1))
        n = data["numbers"]
        metrics = {"accuracy_bound_1": n["accuracy_bound_1"], "accuracy_bound_k": n["accuracy_bound_k"],
                   "odds_factor": n["odds_factor"], "laplace_scale_count": n["laplace_scale_count"],
                   "max_posterior": float(posterior_bound(prior, eps)), "prior": prior,
                   "epsilon_total": eps * k, "observations": k, "epsilon": eps,
                   "accuracy_bound_total": float(dp_expected_accuracy_curve([1], eps * k, delta)[0])}
        return metrics, {"explain": data, "prior": prior}


class Linkage(_Demo):
    name = "linkage"
    title = "Linkage on quasi-identifiers"
    paper = "Sweeney (2000), Simple demographics often identify people uniquely"
    params = (
        Param("people", "int", 20_000, "people in the town", label="People", low=1_000, high=100_000, step=1_000),
        Param("zips", "int", 4, "ZIP codes of the town", label="ZIP codes", low=1, high=20),
        Param("quasi_identifiers", "str", "zip,birth_date,sex", "columns both tables share",
              label="Quasi-identifiers", choices=("zip,birth_date,sex", "zip,sex", "birth_date,sex",
                                                  "zip,birth_date,sex,race,marital"), choice_labels=_QI_LABELS),
        Param("birth_date_level", "int", 0, "0 = full date, 1 = month, 2 = year, 3 = 5-year band, 4 = decade, "
              "5 = removed", label="Birth date published as", low=0, high=5, choice_labels=_BIRTH_LABELS),
        Param("zip_level", "int", 0, "digits of the ZIP removed", label="ZIP digits removed", low=0, high=5),
        Param("voter_fraction", "float", 0.5, "share of the town on the voter list", label="Share on the voter list",
              low=0.05, high=1.0, step=0.05),
    )

    def compute(self, config, rng):
        # lazy: start-up time (pandas only when used)
        from ...reid import linkage, people

        town = people.load_people("synthetic", n_people=config["people"], n_zips=config["zips"],
                                  seed=int(rng.integers(2**31)))
        levels = {}
        for q in config["quasi_identifiers"].split(","):
            levels[q] = config["zip_level"] if q == "zip" else config["birth_date_level"] if q == "birth_date" else 0
        result = linkage.link(town, levels, 1.0, config["voter_fraction"], seed=int(rng.integers(2**31)),
                              combinations_chart=False)
        m = result.metrics()
        metrics = {"share_unique": m["pct_unique_population"] / 100, "share_named": m["pct_correct"] / 100,
                   "share_claimed": m["pct_reidentified"] / 100, "precision": m["precision"],
                   "named": m["n_correct"], "voters": m["n_voters"], "people": m["n_release"]}
        return metrics, {"linkage": m}


class KAnonymity(_Demo):
    name = "k-anonymity"
    title = "k-anonymity and its homogeneity failure"
    paper = "Sweeney (2002), k-anonymity; Machanavajjhala et al. (2007), ℓ-diversity"
    params = (
        Param("table", "str", "people", "people: a synthetic town (diagnosis is sensitive); condition: the 12-record "
              "hospital table of the ℓ-diversity paper", label="Table", choices=("people", "condition"),
              choice_labels={"people": "a synthetic town", "condition": "the ℓ-diversity paper's 12 patients"}),
        Param("people", "int", 2_000, "people in the table", label="People", low=200, high=20_000, step=100),
        Param("quasi_identifiers", "str", "zip,birth_date,sex", "the columns generalised (people table)",
              label="Quasi-identifiers", choices=("zip,birth_date,sex", "zip,birth_date,sex,race,marital"),
              choice_labels=_QI_LABELS),
        Param("k", "int", 5, "every record shares its generalised quasi-identifiers with at least k − 1 others",
              label="k", low=2, high=50),
        Param("method", "str", "mondrian", "how the table is generalised", label="Generaliser",
              choices=("mondrian", "full_domain"),
              choice_labels={"mondrian": "Mondrian", "full_domain": "full-domain generalisation"}),
    )

    def compute(self, config, rng):
        # lazy: start-up time (pandas only when used)
        from ...reid import k_anonymity, people

        if config["table"] == "condition":
            preset = k_anonymity.PRESETS["condition"]
            data, qis, sensitive = preset["table"](), list(preset["qis"]), preset["sensitive"]
            hierarchies = preset["hierarchies"]()
        else:
            town = people.load_people("synthetic", n_people=config["people"], n_zips=4,
                                      seed=int(rng.integers(2**31)))
            data, qis, sensitive = town.table, config["quasi_identifiers"].split(","), town.sensitive
            hierarchies = town.hierarchies
        g = k_anonymity.anonymise(data, qis, config["k"], config["method"], hierarchies, sensitive, 0.0)
        r = g.report
        metrics = {"share_disclosed": r.n_records_homogeneous / max(r.n_records, 1),
                   "records_disclosed": r.n_records_homogeneous, "homogeneous_classes": r.n_homogeneous_classes,
                   "classes": len(r.classes), "min_class_size": r.min_class_size, "k_anonymous": int(r.passes),
                   "records": r.n_records, "share_cells_generalised": g.info["pct_cells_generalised"] / 100}
        keep = [*qis, "size", "n_distinct_sensitive", "homogeneous", "sensitive_values"]
        classes = r.classes[keep].astype({q: str for q in qis})
        return metrics, {"classes": classes.to_dict(orient="list"), "qis": qis, "k": config["k"],
                         "sensitive": sensitive}


class Downcoding(_Demo):
    name = "downcoding"
    title = "Downcoding a minimal k-anonymiser"
    paper = "Cohen (2022), Attacks on deidentification's defenses (USENIX Security)"
    params = (
        Param("table", "str", "slide", "the published example", label="Table", choices=("slide", "mixed"),
              choice_labels={"slide": "Cohen's slide: ZIP and income (6 records)",
                             "mixed": "mixed heights (7 records)"}),
        Param("k", "int", 2, "k of the anonymiser", label="k", low=2, high=3),
        Param("knowledge", "str", "minimal", "what the attacker knows about the anonymiser",
              label="The attacker knows", choices=("minimal", "optimal"),
              choice_labels={"minimal": "the anonymiser is minimal", "optimal": "the anonymiser is optimal"}),
    )

    def compute(self, config, rng):
        # lazy: start-up time (pandas only when used)
        from ...reid import downcoding

        x, hierarchy = downcoding.PRESETS[config["table"]][1]()
        d = downcoding.downcode(x, hierarchy, config["k"], config["knowledge"])
        m = d.metrics()
        metrics = {"share_records_refined": m["pct_records_refined"] / 100, "cells_exact": m["n_cells_exact"],
                   "cells_refined": m["n_cells_refined"], "cells_generalised": m["n_cells_generalised"],
                   "records": m["n_records"], "consistent_tables": m["n_consistent"]}
        return metrics, {"status": d.status_matrix().astype(str).to_dict(orient="split"),
                         "y": d.y.astype(str).to_dict(orient="split"), "z": d.z.astype(str).to_dict(orient="split")}


DEMOS: dict[str, Scenario] = {d.name: d for d in (Epsilon(), Linkage(), KAnonymity(), Downcoding())}
