# wafertop - build, test, bench, run.
#
#   make          build ./wafertop
#   make deps     install the missing Debian packages (as root), else say how
#   make test     deps, build, every test, then every test again under ASan+UBSan
#   make fuzz     deps, the libFuzzer targets (clang), each run for FUZZ_S seconds
#   make run      deps, build, open the live screen on layouts/default.yaml
#   make bench    print the performance figures of docs/ARCHITECTURE.md, "Speed"
#   make install  the binary to $(PREFIX)/bin, layouts and scripts to $(PREFIX)/share/wafertop
#   make clean

CC       ?= cc
BUILD    ?= build
BIN      ?= wafertop
OPT      ?= -O2 -g
EXTRA    ?=
PKGS      = ncursesw yaml-0.1 lua5.4 cmocka libpng ompi-c
APT_PKGS  = gcc libc6-dev make libncurses-dev libyaml-dev liblua5.4-dev libcmocka-dev libpng-dev pkg-config tmux python3 \
	libopenmpi-dev openmpi-bin
# What `make fuzz` needs besides: clang and its runtimes (libFuzzer's among them).
FUZZ_PKGS = clang libclang-rt-dev
SAN       = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

PREFIX   ?= /usr/local
DATADIR   = $(PREFIX)/share/wafertop

WARN      = -std=c11 -Wall -Wextra -Wpedantic -Werror
DEFS      = -D_POSIX_C_SOURCE=200809L -DWT_DATADIR='"$(DATADIR)"'
# Expanded when a recipe runs, so that `make deps` can install them first.
YAML_CF   = $(shell pkg-config --cflags yaml-0.1)
YAML_LD   = $(shell pkg-config --libs yaml-0.1)
CMOCKA_CF = $(shell pkg-config --cflags cmocka)
CMOCKA_LD = $(shell pkg-config --libs cmocka)
LUA_CF    = $(shell pkg-config --cflags lua5.4)
LUA_LD    = $(shell pkg-config --libs lua5.4)
CURSES_CF = $(shell pkg-config --cflags ncursesw)
CURSES_LD = $(shell pkg-config --libs ncursesw)
PNG_CF    = $(shell pkg-config --cflags libpng)
PNG_LD    = $(shell pkg-config --libs libpng)
# OpenMPI, when there (`make deps` installs it): the ranks of sweep and search (tui/mpi_job.c)
MPI_CF    = $(shell pkg-config --exists ompi-c 2>/dev/null && echo -DWT_MPI $$(pkg-config --cflags ompi-c))
MPI_LD    = $(shell pkg-config --libs ompi-c 2>/dev/null)
CFLAGS_ALL = $(WARN) $(DEFS) $(OPT) $(EXTRA) -MMD -MP -Iengine -Iengine/net -Ilua $(YAML_CF) $(LUA_CF)
LDLIBS_ALL = $(LUA_LD) $(YAML_LD) -lm -lpthread

ENGINE_SRC = $(wildcard engine/*.c engine/net/*.c)
LUA_SRC    = $(wildcard lua/*.c)
TUI_SRC    = $(wildcard tui/*.c)
TEST_SRC   = $(wildcard tests/test_*.c)
ENGINE_OBJ = $(ENGINE_SRC:%.c=$(BUILD)/%.o)
LUA_OBJ    = $(LUA_SRC:%.c=$(BUILD)/%.o)
TUI_OBJ    = $(TUI_SRC:%.c=$(BUILD)/%.o)
MAIN_OBJ   = $(BUILD)/tui/main.o
TEST_BIN   = $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
# tests/fuzz/fuzz_NAME.c: one fuzz target each, with its corpus in tests/fuzz/corpus/NAME
FUZZ_NAMES = $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
REPLAY_BIN = $(FUZZ_NAMES:%=$(BUILD)/fuzz/replay_%)
FUZZ_BIN   = $(FUZZ_NAMES:%=$(BUILD)/fuzz/fuzz_%)
FUZZ_S    ?= 10
ENGINE_LIB = $(BUILD)/libwtengine.a
LUA_LIB    = $(BUILD)/libwtlua.a
TUI_LIB    = $(BUILD)/libwttui.a
LIBS       = $(TUI_LIB) $(LUA_LIB) $(ENGINE_LIB)

.PHONY: all deps test check run bench fuzz fuzz-run install clean FORCE
# Keep objects that only feed a test binary, so a rebuild stays incremental.
.SECONDARY:

all: $(BIN)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(ENGINE_LIB): $(ENGINE_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# paths.o holds DATADIR: rebuild it when PREFIX changes.
$(BUILD)/datadir.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(DATADIR)' | cmp -s - $@ || echo '$(DATADIR)' > $@
$(BUILD)/tui/paths.o: $(BUILD)/datadir.stamp
FORCE:

$(LUA_LIB): $(LUA_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# The program but its main, for the tests of the screen's parts.
$(TUI_LIB): $(filter-out $(MAIN_OBJ),$(TUI_OBJ))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# Only the terminal layer sees curses.h (and its feature macros).
$(BUILD)/tui/term.o: CFLAGS_ALL += $(CURSES_CF)
# Only the picture writer sees png.h (and the tests that decode its files).
$(BUILD)/tui/pic_file.o: CFLAGS_ALL += $(PNG_CF)
# Only the ranks' code sees mpi.h.
$(BUILD)/tui/mpi_job.o $(BUILD)/tui/sweep_mpi.o $(BUILD)/tui/search_mpi.o: CFLAGS_ALL += $(MPI_CF)

$(BIN): $(MAIN_OBJ) $(LIBS)
	$(CC) $(OPT) $(EXTRA) -o $@ $(MAIN_OBJ) $(LIBS) $(CURSES_LD) $(PNG_LD) $(MPI_LD) $(LDLIBS_ALL)

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(LIBS)
	$(CC) $(OPT) $(EXTRA) -o $@ $< $(LIBS) $(CMOCKA_LD) $(CURSES_LD) $(PNG_LD) $(MPI_LD) $(LDLIBS_ALL)

$(BUILD)/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itui $(CMOCKA_CF) $(PNG_CF) -c $< -o $@

# As root, whatever is missing of both lists is installed; otherwise only a
# missing build or test package fails (make fuzz then says what it lacks).
deps:
	@missing=""; fuzz=""; \
	command -v cc >/dev/null 2>&1 || missing="cc"; \
	command -v pkg-config >/dev/null 2>&1 || missing="$$missing pkg-config"; \
	for p in $(PKGS); do pkg-config --exists $$p 2>/dev/null || missing="$$missing $$p"; done; \
	command -v tmux >/dev/null 2>&1 || missing="$$missing tmux"; \
	command -v mpirun >/dev/null 2>&1 || missing="$$missing mpirun"; \
	command -v python3 >/dev/null 2>&1 || missing="$$missing python3"; \
	command -v clang >/dev/null 2>&1 && \
	    [ -e "$$(clang -print-runtime-dir)/libclang_rt.fuzzer-$$(uname -m).a" ] || fuzz="clang libFuzzer"; \
	if [ -z "$$missing$$fuzz" ]; then exit 0; fi; \
	echo "missing:$$missing $$fuzz"; \
	if [ "$$(id -u)" = 0 ]; then \
	    DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(APT_PKGS) $(FUZZ_PKGS); \
	elif [ -n "$$missing" ]; then \
	    echo "run as root: apt-get install -y $(APT_PKGS) $(FUZZ_PKGS)"; exit 1; \
	else \
	    echo "make fuzz needs, as root: apt-get install -y $(FUZZ_PKGS)"; \
	fi

# The fuzz targets without libFuzzer: replay.c feeds each its corpus.
$(BUILD)/tests/fuzz/%.o: tests/fuzz/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itui -c $< -o $@

FUZZ_OBJ = $(BUILD)/tests/fuzz/harness.o

$(BUILD)/fuzz/replay_%: $(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/fuzz/replay.o $(FUZZ_OBJ) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(EXTRA) -o $@ $(filter %.o,$^) $(LIBS) $(CURSES_LD) $(PNG_LD) $(MPI_LD) $(LDLIBS_ALL)

# With libFuzzer (built by `make fuzz`, whose EXTRA instruments every object).
$(BUILD)/fuzz/fuzz_%: $(BUILD)/tests/fuzz/fuzz_%.o $(FUZZ_OBJ) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(EXTRA) -fsanitize=fuzzer -o $@ $(filter %.o,$^) $(LIBS) $(CURSES_LD) $(PNG_LD) $(MPI_LD) $(LDLIBS_ALL)

# Every test binary, the end-to-end command tests against $(BIN), then every
# fuzz target on its corpus (the log shown when one fails).
check: $(BIN) $(TEST_BIN) $(REPLAY_BIN)
	@set -e; for t in $(TEST_BIN); do echo "== $$t"; ./$$t; done
	@set -e; for s in tests/e2e_*.sh; do [ -e "$$s" ] || continue; echo "== $$s"; sh $$s ./$(BIN); done
	@set -e; for n in $(FUZZ_NAMES); do \
	    log=$(BUILD)/fuzz/replay_$$n.log; \
	    ./$(BUILD)/fuzz/replay_$$n tests/fuzz/corpus/$$n/* >$$log 2>&1 || { cat $$log; exit 1; }; \
	    tail -n 1 $$log; done

test: deps
	$(MAKE) check
	$(MAKE) BUILD=build/san BIN=build/san/wafertop OPT="-O1 -g" EXTRA="$(SAN)" check

# A Megatron-style strategy on the mesh: its DP all-reduce and ZeRO gathers
# run hot. The screen's hint line says how to search or start a policy.
RUN_SCENARIO = --layout default --model gpt3-6.7b --strategy DP8,TP32 --placement linear \
	--checkpoint full --mem zero,act_int8,grad_fp8
run: deps
	$(MAKE) all
	./$(BIN) ui $(RUN_SCENARIO)

bench: deps
	$(MAKE) all $(BUILD)/bench
	./$(BUILD)/bench
	sh tests/bench_ui.sh ./$(BIN) 500 $(RUN_SCENARIO)
	sh tests/bench_ui.sh ./$(BIN) 50 --layout wse2
	sh tests/bench_ui.sh ./$(BIN) 50 --layout wse3
	@for c in "link_util --group 12x12" units hot_links; do \
	    WAFERTOP_BENCH=1 ./$(BIN) cmd $$c --layout wse2 >/dev/null || exit 1; done
	WAFERTOP_BENCH=2 ./$(BIN) sweep tests/fixtures/sweeps/eval-64.yaml --quiet >/dev/null
	sh tests/bench_mpi.sh ./$(BIN)

$(BUILD)/bench: $(BUILD)/tests/bench.o $(ENGINE_LIB)
	$(CC) $(OPT) -o $@ $< $(ENGINE_LIB) $(LDLIBS_ALL)

# Each fuzz target under libFuzzer, ASan and UBSan for FUZZ_S seconds, from
# its corpus; what it finds new goes to build/libfuzzer/corpus/NAME, a crash
# to build/libfuzzer/findings/NAME-* (and the run fails).
FUZZ_DIR = build/libfuzzer
fuzz: deps
	$(MAKE) CC=clang BUILD=$(FUZZ_DIR) OPT="-O1 -g" EXTRA="-fsanitize=fuzzer-no-link $(SAN)" fuzz-run

fuzz-run: $(FUZZ_BIN)
	@set -e; mkdir -p $(BUILD)/findings; for n in $(FUZZ_NAMES); do \
	    mkdir -p $(BUILD)/corpus/$$n; echo "== fuzz_$$n for $(FUZZ_S) s"; log=$(BUILD)/fuzz_$$n.log; \
	    ./$(BUILD)/fuzz/fuzz_$$n -max_total_time=$(FUZZ_S) -timeout=30 -print_final_stats=1 \
	        -artifact_prefix=$(CURDIR)/$(BUILD)/findings/$$n- \
	        $(CURDIR)/$(BUILD)/corpus/$$n $(CURDIR)/tests/fuzz/corpus/$$n >$$log 2>&1 || \
	        { tail -n 40 $$log; echo "fuzz_$$n: a finding (its input in $(BUILD)/findings)"; exit 1; }; \
	    grep -aE '^#[0-9]+[[:space:]]+DONE|^stat::(number_of_executed_units|average_exec_per_sec)' $$log; \
	done

install: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/wafertop
	for f in layouts/*.yaml themes/*.yaml $$(find lua -name '*.lua'); do \
	    install -D -m 644 $$f $(DESTDIR)$(DATADIR)/$$f; done
	install -D -m 644 docs/wafertop.1 $(DESTDIR)$(PREFIX)/share/man/man1/wafertop.1

clean:
	rm -rf build $(BIN)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
