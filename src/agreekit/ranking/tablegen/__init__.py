"""Generation of the coefficient tables (Lombardo 2025, §4): Monte Carlo sampling
(:mod:`~agreekit.ranking.tablegen.sampling`), polynomial fits
(:mod:`~agreekit.ranking.tablegen.fitting`), table assembly
(:mod:`~agreekit.ranking.tablegen.generation`), the reproduction report
(:mod:`~agreekit.ranking.tablegen.reproduction`) and figures
(:mod:`~agreekit.ranking.tablegen.figures`). Used by the pipeline; the runtime
(:mod:`agreekit.ranking`) does not import it except for shared helpers.
"""
