"""Attribute-inference attacks on trained models and the disparity analysis of Kabir, Craig & Mehnaz,
*Disparate Privacy Vulnerability: Targeted Attribute Inference Attacks and Defenses* (arXiv 2504.04033)."""
