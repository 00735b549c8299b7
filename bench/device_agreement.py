"""Issue 40's agreement and speed on the larger problems, without contraction (a short device check).

    PYTHONPATH=. python3 bench/device_agreement.py OUT.json
"""
import json
import sys
import warnings

warnings.simplefilter("ignore")
from reach.tools.bench_gpu import format_gpu, gpu_case  # noqa: E402

report = {}
for label, cpu in (("disk-stack", 2**14), ("quadruped", 2**13)):
    report[label] = gpu_case(label, (2**20,), cpu, agree=2**14)
    print({k: v for k, v in report[label].items() if k != "runs"}, flush=True)
print(format_gpu(report))
with open(sys.argv[1], "w") as f:
    json.dump(report, f, indent=1)
