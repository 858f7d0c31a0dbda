"""A toy scenario with a known answer, shared by the tests of the runner (tests/core/runtime/test_games.py), the
result store (tests/core/runtime/test_store.py) and the scenario contract (tests/core/test_params.py). It lives among
the helpers, on every test's import path, because those tests sit in different folders."""
import numpy as np

from core.params import Param
from core.scenario import Scenario


class Coin(Scenario):
    """A toy game with a known answer: the attacker guesses a biased coin's side."""

    name = "coin-test"
    params = (Param("games", "int", 40, low=1, high=10_000), Param("bias", "float", 0.8, low=0.0, high=1.0))

    def n_games(self, c):
        return c["games"]

    def play(self, c, ctx, i, rng):
        return {"win": bool(rng.random() < c["bias"])}

    def summarize(self, c, ctx, records):
        wins = np.array([r["win"] for r in records])
        return {"accuracy": wins.mean()}, {"wins": wins.tolist()}
