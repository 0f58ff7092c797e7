# shellcheck shell=bash
# The tests that need Qt: the window's, the conformance views', the packaged program's,
# and the one test elsewhere that opens the window's sources service. Every other test
# runs in the no-qt gate of scripts/check (a new folder included), and the whole suite of
# scripts/test runs only these after that gate has run the others.
qt_test_paths=(tests/ui tests/conformance tests/packaging tests/test_environment.py)
qt_test_ids=(tests/config/test_config.py::test_saving_never_loses_saved_sources_it_could_not_read)
