# docs/docs.mk: the documentation. Included by the top-level Makefile; run from the repository
# root (`make docs`).
#
# Uses, from the Makefile:
#   BUILD          build directory (build)
#   CC, CFLAGS     the host C compiler and its flags (-std=c11 -Wall -Wextra -O2)
#   KIT_INCLUDES   -Icommon -I$(CUDA_HOME)/include (oddeven.h and bitonic.h include
#                  cuda_runtime_api.h; the diagram tool links nothing from CUDA)
# May be overridden on the command line:
#   DOXYGEN        doxygen (1.9.4 or newer)
#   MATHJAX_DIR    Debian's libjs-mathjax (MathJax 2), copied next to the HTML
#   PERF_CSVS      the results files the Performance page shows (docs/performance/*.csv)
# Defines:
#   docs                  Doxygen HTML in $(DOCS_HTML), warnings are errors, then a check
#                         that no local link of it is broken (tools/check_links.py)
#   $(NETWORK_DIAGRAM)    build/tools/network_diagram, the comparator-network drawer
#   $(MERGE_PATH_DIAGRAM) build/tools/merge_path_diagram, the merge-path grid drawer (Lab 02)
#   $(DOCS_IMAGES)        the handouts' generated diagrams (build/docs/images/*.svg)
#   docs-images           just the diagrams
#   docs-performance      the Performance page and its charts in $(DOCS_PERF_DIR), from
#                         $(PERF_CSVS) (tools/bench_report.py --page; gnuplot draws the charts,
#                         no GPU needed; no results file: the page says so)

DOXYGEN ?= doxygen
MATHJAX_DIR ?= /usr/share/javascript/mathjax

DOCS_OUT := $(BUILD)/docs
DOCS_HTML := $(DOCS_OUT)/html
DOCS_IMAGE_DIR := $(DOCS_OUT)/images
DOCS_PERF_DIR := $(DOCS_OUT)/performance
PERF_CSVS ?= $(sort $(wildcard docs/performance/*.csv))
NETWORK_DIAGRAM := $(BUILD)/tools/network_diagram
MERGE_PATH_DIAGRAM := $(BUILD)/tools/merge_path_diagram
DOCS_IMAGES := $(DOCS_IMAGE_DIR)/oddeven_network_n8.svg \
               $(DOCS_IMAGE_DIR)/bitonic_network_n16.svg \
               $(DOCS_IMAGE_DIR)/merge_path_4x4.svg \
               $(DOCS_IMAGE_DIR)/merge_path_ties.svg

# The parts of MathJax 2 the pages load (its unpacked/ sources and test/ pages are left out).
DOCS_MATHJAX_PARTS := MathJax.js config extensions fonts jax localization

$(NETWORK_DIAGRAM): tools/network_diagram.c labs/01-oddeven/oddeven.h labs/03-bitonic/bitonic.h \
                    common/host_device.h common/keyflip.h common/exit_codes.h
	@mkdir -p $(@D)
	$(CC) $(KIT_CFLAGS) $(CFLAGS) -Ilabs/01-oddeven -Ilabs/03-bitonic $< -o $@

$(DOCS_IMAGE_DIR)/oddeven_network_n8.svg: $(NETWORK_DIAGRAM)
	@mkdir -p $(@D)
	$(NETWORK_DIAGRAM) --lab oddeven -n 8 > $@.tmp
	@mv $@.tmp $@

$(DOCS_IMAGE_DIR)/bitonic_network_n16.svg: $(NETWORK_DIAGRAM)
	@mkdir -p $(@D)
	$(NETWORK_DIAGRAM) --lab bitonic -n 16 > $@.tmp
	@mv $@.tmp $@

# (The drawer's rule is in the Makefile's tools: `make` builds it for Lab 02's handout.)

# The seed article's example of Lab 02's handout, cut into pieces of 2 output keys.
$(DOCS_IMAGE_DIR)/merge_path_4x4.svg: $(MERGE_PATH_DIAGRAM)
	@mkdir -p $(@D)
	$(MERGE_PATH_DIAGRAM) --left 1,5,7,9 --right 2,6,8,10 --piece 2 > $@.tmp
	@mv $@.tmp $@

# Equal keys across the runs: the left run's go first (stability).
$(DOCS_IMAGE_DIR)/merge_path_ties.svg: $(MERGE_PATH_DIAGRAM)
	@mkdir -p $(@D)
	$(MERGE_PATH_DIAGRAM) --left 2,3,3,7 --right 1,3,3,8,9 --piece 3 > $@.tmp
	@mv $@.tmp $@

.PHONY: docs docs-images docs-performance
docs-images: $(DOCS_IMAGES)

# The Performance page: made again on every run (a few charts), into a fresh folder, so a
# results file taken out of docs/performance/ leaves no chart or section behind.
docs-performance:
	@rm -rf $(DOCS_PERF_DIR)
	@python3 tools/bench_report.py --page $(DOCS_PERF_DIR) $(PERF_CSVS)

# Doxygen runs every time (a few seconds): it alone knows what its pages depend on. Old pages
# are removed first, so a page whose source is gone does not linger; the MathJax copy stays.
docs: $(DOCS_IMAGES) docs-performance
	@command -v $(DOXYGEN) >/dev/null 2>&1 || { \
	  echo "make docs: '$(DOXYGEN)' not found. Run 'make deps', or: apt-get install doxygen graphviz libjs-mathjax" >&2; \
	  exit 2; }
	@command -v dot >/dev/null 2>&1 || { \
	  echo "make docs: Graphviz's 'dot' not found. Run 'make deps', or: apt-get install graphviz" >&2; \
	  exit 2; }
	@test -f $(MATHJAX_DIR)/MathJax.js || { \
	  echo "make docs: no MathJax in $(MATHJAX_DIR). Run 'make deps', or: apt-get install libjs-mathjax (or set MATHJAX_DIR)" >&2; \
	  exit 2; }
	@mkdir -p $(DOCS_HTML)
	@find $(DOCS_HTML) -mindepth 1 -maxdepth 1 ! -name mathjax -exec rm -rf {} +
	KIT_DOCS_OUT=$(DOCS_OUT) KIT_IMAGE_DIR=$(DOCS_IMAGE_DIR) KIT_MATHJAX_REL=mathjax \
	  KIT_PERF_DIR=$(DOCS_PERF_DIR) $(DOXYGEN) docs/Doxyfile
	@if [ ! -f $(DOCS_HTML)/mathjax/MathJax.js ]; then \
	  echo "copying MathJax from $(MATHJAX_DIR) to $(DOCS_HTML)/mathjax"; \
	  rm -rf $(DOCS_HTML)/mathjax $(DOCS_HTML)/mathjax.tmp && \
	  mkdir -p $(DOCS_HTML)/mathjax.tmp && \
	  for part in $(DOCS_MATHJAX_PARTS); do \
	    cp -RL $(MATHJAX_DIR)/$$part $(DOCS_HTML)/mathjax.tmp/ || exit 1; \
	  done && \
	  mv $(DOCS_HTML)/mathjax.tmp $(DOCS_HTML)/mathjax; \
	fi
	@python3 tools/check_links.py $(DOCS_HTML)
	@echo "docs: open $(DOCS_HTML)/index.html"
