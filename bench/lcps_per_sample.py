"""LCP solves a sample, on average, for the three cases of ``reach bench --gpu`` (uniform caps, random choice):
what turns Lemke's LCPs a second into a bound on samples a second.

    PYTHONPATH=. python bench/lcps_per_sample.py > bench/lcps-per-sample.log
"""
from reach import sample_post_impact_set
from reach.tools.bench_gpu import GPU_CASES, problem_case

print(f"# {__doc__.splitlines()[0]}")
for label, _, _ in GPU_CASES:
    p, h, N = problem_case(label)
    r = sample_post_impact_set(p, 2**14, h, N, n_jobs=1, strategy="uniform", solution_choice="random",
                               keep_paths=0, completeness=False)
    print(f"{label}: LCP n = {p.lcp_size}, {r.lcp_solves.mean():.3f} LCP solves a sample over {r.lcp_solves.size} "
          f"samples (kept {r.kept.mean():.1%})")
