# tools/tools.mk: the small programs and scripts the kit uses on itself. Included by the
# Makefile.
#
# Uses, from the Makefile: BUILD, CC, CFLAGS, LABS, HAVE_SOLUTIONS; from labs/labs.mk
# SKELETON_PAIRS.
# Defines:
#   KIT_TOOLS          the skeleton generator and the merge-path drawer ($(BUILD)/tools/)
#   deps               install what the kit needs (apt, as root), or say the command
#   skeletons          write labs/NN-name/name.cu from solutions/NN-name/name.cu
#   check-skeletons    the committed skeletons are what the generator writes
#   check-layout       the layout maps (README.md, docs/mainpage.md, kitgrader) and make help
#                      name what is there
#   gpu-check          on a GPU host: suites, sanitizers, grading, fixtures, benchmarks
#   bench-report       charts and a table from benchmark rows (no GPU needed)
#   handout, check-handout   the student package, and a check of it
#   format, check-format     the kit's form: clang-format, black, pyflakes (tools/format.sh)

# merge_path_diagram draws Lab 02's merge path (its handout shows the command, and the site's
# figure is drawn with it: docs/docs.mk).
KIT_TOOLS := $(BUILD)/tools/skeleton $(BUILD)/tools/merge_path_diagram

deps:
	@bash tools/deps.sh

$(BUILD)/tools/skeleton: tools/skeleton.c
	@mkdir -p $(@D)
	$(CC) $(KIT_CFLAGS) $(CFLAGS) $< -o $@

# The merge path is drawn from common/merge_path_ref.h, the CPU reference of Lab 02's tests
# (the co-rank of the lab itself is the student's TODO).
$(BUILD)/tools/merge_path_diagram: tools/merge_path_diagram.c common/merge_path_ref.h \
                                   common/exit_codes.h
	@mkdir -p $(@D)
	$(CC) $(KIT_CFLAGS) $(CFLAGS) $< -o $@

# ---- skeletons: one source for skeleton and solution -------------------------------------------
skeletons: $(BUILD)/tools/skeleton
	@$(if $(HAVE_SOLUTIONS),,echo "skeletons: no solutions/ here (a student package): nothing to write")
	@for p in $(SKELETON_PAIRS); do \
	  $(BUILD)/tools/skeleton solutions/$$p > labs/$$p.tmp && mv labs/$$p.tmp labs/$$p \
	    && echo "wrote labs/$$p" || { rm -f labs/$$p.tmp; exit 2; }; done

check-skeletons: $(BUILD)/tools/skeleton
	@$(if $(HAVE_SOLUTIONS),,echo "check-skeletons: no solutions/ here (a student package): nothing to check")
	@mkdir -p $(BUILD)/skeletons
	@status=0; for p in $(SKELETON_PAIRS); do \
	  out=$(BUILD)/skeletons/$$(echo $$p | tr / _); \
	  $(BUILD)/tools/skeleton solutions/$$p > $$out || exit 2; \
	  if cmp -s $$out labs/$$p; then echo "skeleton labs/$$p: up to date"; \
	  else echo "skeleton labs/$$p differs from what solutions/$$p gives: run 'make skeletons'"; \
	       diff -u labs/$$p $$out | head -20; status=1; fi; done; exit $$status

# The maps of the kit (README.md's and docs/mainpage.md's layout tables, kitgrader's list of
# modules) and `make help` against what is there.
check-layout:
	@$(if $(HAVE_SOLUTIONS),python3 tools/test_check_layout.py 2>&1 | tail -n 1 &&) python3 tools/check_layout.py

# ---- on a GPU host -------------------------------------------------------------------------------
gpu-check: all
	@bash tools/gpu_check.sh $(BUILD) $(LABS)

# Charts and a table from benchmark rows (a driver's --bench --csv FILE; gpu-check writes them
# to $(BUILD)/gpu-check/bench.csv): BENCH_CSV names other files. Needs gnuplot, no GPU.
BENCH_CSV ?= $(BUILD)/gpu-check/bench.csv
bench-report:
	@python3 tools/bench_report.py $(BUILD)/bench-report $(BENCH_CSV)

# ---- what a course hands out (instructors' kit only: they need solutions/) ------------------
handout: docs
	@bash tools/handout/make_handout.sh $(BUILD)

# Unpacks the package into a fresh folder and builds it there (one architecture).
check-handout:
	@if [ ! -d tools/handout ]; then echo "check-handout: not in a student package"; exit 0; fi; \
	$(MAKE) --no-print-directory handout && python3 tools/handout/check_handout.py $(BUILD)

# ---- the kit's form: clang-format, black, pyflakes (tools/format.sh) ---------------------------
format:
	@KIT_SKELETONS="$(SKELETON_PAIRS)" bash tools/format.sh fix

check-format:
	@KIT_SKELETONS="$(SKELETON_PAIRS)" bash tools/format.sh check
