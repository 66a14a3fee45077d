"""Package layout: the import packages ``upgrader`` and ``compat``; ``rules/`` (data, not an
import package) is shipped inside the wheel at ``upgrader/rules``."""
from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["upgrader", "upgrader.*", "compat", "compat.*"]) + ["upgrader.rules"],
    package_dir={"upgrader.rules": "rules"},
    package_data={"upgrader.rules": ["*.toml", "*.json", "*.md"], "upgrader": ["data/*.json"],
                  "compat": ["_autoload/sitecustomize.py"]},
)
