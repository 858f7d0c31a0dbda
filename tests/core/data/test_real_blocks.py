"""Census blocks from real survey microdata (offline): PPMF coding, a lossless PPMF-CSV round trip, and the block
profile that separates real household blocks from the lab's synthetic ones."""
import numpy as np
import pytest

from core.data import real_blocks as RB
from core.data.census import load_ppmf, synthetic_block
from core.errors import DataError


def test_block_profile_known_answer():
    # (sex, age, race, hisp): two identical people, two unique ones
    r = np.array([[0, 30, 0, 0], [0, 30, 0, 1], [1, 5, 0, 0], [1, 40, 1, 0]])
    p = RB.block_profile(r)
    assert p["people"] == 4 and p["unique_share"] == 0.5 and p["top_race_share"] == 0.75
    assert p["under_18_share"] == 0.25 and p["entropy_bits"] == pytest.approx(1.5)


def test_vietnam_region_is_whole_households_of_one_ethnicity_and_round_trips_as_ppmf(tmp_path):
    pop = RB.vietnam_region(4540)
    r = pop.records
    assert len(r) >= 4540 and (r[:, 2] == 0).all() and set(np.unique(r[:, 0])) == {0, 1}
    assert r[:, 1].min() <= 5 and r[:, 1].max() >= 70          # children and old people: real households
    back, block = load_ppmf(RB.write_ppmf(pop, tmp_path / "v.csv"), min_size=4540)
    assert block == "99-001-000100-1" and np.array_equal(back.records, r)
    with pytest.raises(DataError):
        RB.vietnam_region(10**6)


def test_real_household_blocks_are_more_concentrated_than_synthetic_ones():
    """The property the Aggregate statistics page reports: far fewer people unique on sex × age × race in a
    private part of 454 drawn from a real household block than from a synthetic or a real-adults block."""
    rng = np.random.default_rng(0)

    def unique_share(records):
        return RB.block_profile(records[rng.permutation(len(records))[:454]])["unique_share"]

    vlss = unique_share(RB.vietnam_region(4540).records)
    synth = unique_share(synthetic_block(4540, rng).records)
    cces = unique_share(RB.cces_state("California").records)
    assert vlss < 0.15 < 0.25 < min(synth, cces)


def test_cces_state_codes_and_refusals():
    pop = RB.cces_state("California")
    r = pop.records
    assert len(r) > 4540 and r[:, 1].min() >= 18                 # adults only
    assert (r[r[:, 3] == 1, 2] == 5).all()                       # Hispanic respondents: 'Some other race'
    with pytest.raises(DataError, match="no CCES"):
        RB.cces_state("Atlantis")
