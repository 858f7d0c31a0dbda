"""Privacy-attack lab engine: scenarios, releases, attacks, metrics. Importable without Streamlit."""
