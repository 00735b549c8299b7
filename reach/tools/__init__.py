"""The leaves: the command line (:mod:`.cli`), figure regeneration (:mod:`.figures`), the bench
(:mod:`.bench`) and the plain NumPy Lemke it measures against (:mod:`.lcp_reference`).

Only tools look scenarios up by name; nothing in the library imports a tool.
"""
