"""Privacy-attack lab engine: scenarios, releases, attacks, metrics. Importable without Streamlit."""


def __getattr__(name: str):
    """``core.audit_release`` (:mod:`core.scenarios.synthetic.release_audit`), imported on first use so ``import core`` stays light."""
    if name == "audit_release":
        # lazy: start-up time (the synthetic lab and its generators load only when a notebook asks for it)
        from .scenarios.synthetic.release_audit import audit_release

        return audit_release
    raise AttributeError(f"module 'core' has no attribute {name!r}")
