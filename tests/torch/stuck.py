"""A job whose rank 1 never ends (as a rank waiting forever on one that is gone):
the others end at once. Used by run-tests to check that launch.py stops it
after its --grace, instead of waiting out --timeout. Needs no torch."""
import os
import time

if os.environ["RANK"] == "1":
    time.sleep(3600)
