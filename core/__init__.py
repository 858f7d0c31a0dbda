"""Privacy-attack lab engine: scenarios, releases, attacks, metrics. Importable without Streamlit."""


def __getattr__(name: str):
    """``core.audit_release`` (:mod:`core.release_audit`), imported on first use so ``import core`` stays light."""
    if name == "audit_release":
        from .release_audit import audit_release

        return audit_release
    raise AttributeError(f"module 'core' has no attribute {name!r}")
