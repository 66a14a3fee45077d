import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_docs_rules_md_is_up_to_date():
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_rules_doc.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
