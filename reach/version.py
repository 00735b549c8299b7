"""The package version (its own module, so that any layer can read it without importing the package root)."""

#: The version of reach (PEP 440).
__version__ = "0.2.0"
