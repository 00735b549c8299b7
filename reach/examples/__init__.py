"""Small examples shipped with the package, for the README's first steps (``reach robust --predicate reach.examples.requirements:...``)."""
