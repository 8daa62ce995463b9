# Reads a jobs.csv with pandas as a user would, with no option, and prints
# as JSON what TestPandasJobsCSV checks against summary.json: the mean of
# waiting_time, the rows, the missing (NaN) values per column and the
# columns' dtypes.
import json
import sys

import pandas as pd

df = pd.read_csv(sys.argv[1])
print(json.dumps({
    "wait_mean": float(df.waiting_time.mean()),
    "rows": int(len(df)),
    "missing": {c: int(n) for c, n in df.isna().sum().items()},
    "dtypes": {c: str(t) for c, t in df.dtypes.items()},
}))
