"""Handing a result on: HTML/JSON reports, plain-language sentences, formula-safe CSV."""
