"""Tests of lightcycle.judge."""
