# shmemcomm: kernel module, library, tools and tests.
#
#   make            the library and the test programs (into build/)
#   make kmod       build/kbuild/KVER/kmod/shmemcomm.ko against Debian 12's
#                   headers, or KVER's (scripts/lib.sh: tested_kernels)
#   make check      everything: setup, unit, KUnit (UML), guest (real kernel)
#   make run        the main job in a guest with the module loaded
#   make checkpatch checkpatch.pl --strict on kmod/ and uapi/
#   make install    the library (shared and static), headers, shmemcomm.pc,
#                   the tools, man pages and the udev rule; PREFIX (default
#                   /usr/local) and DESTDIR are honoured
#   make dkms-source  the module's source tree for DKMS, into
#                   $(DESTDIR)/usr/src/shmemcomm-$(VERSION)

# one version for the library, the tools and the module: dkms.conf's
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
KVER ?= $(shell . scripts/lib.sh && kernel_abi)
KDIR ?= /usr/src/linux-headers-$(KVER)
BUILD := build

CC ?= cc
CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -pthread
CPPFLAGS += -Iinclude -Ilib -Iuapi -Itests/common
SANITIZE := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

LIB_SRCS := $(wildcard lib/*/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
LIB := $(BUILD)/libshmemcomm.a
# The shared library exports the OpenSHMEM and shmemx API only (lib/libshmemcomm.map).
SOVERSION := 0
SHARED := $(BUILD)/shared/libshmemcomm.so.$(VERSION)
PIC_OBJS := $(LIB_SRCS:%.c=$(BUILD)/pic/%.o)

UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(wildcard tests/unit/test_*.c))
GUEST_HELPERS := $(BUILD)/tests/guest/guest.o
GUEST_TESTS := $(patsubst tests/guest/%.c,$(BUILD)/tests/guest/%,\
	$(filter-out tests/guest/guest.c tests/guest/verbs.c tests/guest/cycles.c \
	tests/guest/vgem_provider.c,$(wildcard tests/guest/*.c)))
# a heap provider of vgem's memory, loaded by SHMEMCOMM_HEAP_PROVIDER (run-tests' mp-device)
GUEST_PROVIDER := $(BUILD)/tests/guest/vgem_provider.so
GUEST_COMPAT32 := $(BUILD)/tests/guest/compat32
MP_TESTS := $(patsubst tests/mp/%.c,$(BUILD)/tests/mp/%,$(wildcard tests/mp/*.c))
EXAMPLES := $(patsubst tests/examples/%.c,$(BUILD)/tests/examples/%,$(wildcard tests/examples/*.c))
VERBS_TESTS := rdma rdma_user dmabuf kill_cycles kill_cycles_device
$(foreach t,$(VERBS_TESTS),$(eval GUEST_LIBS_$(t) := $(BUILD)/tests/guest/verbs.o -libverbs))
# the netlink test speaks to the family through shmemctl's client
GUEST_LIBS_netlink := -lmnl
# an OpenSHMEM job, the whole library
GUEST_LIBS_job_hold := -libverbs -lm

# The PMIx bootstrap plugin (lib/boot/plugin.h says why it is one): built
# where pkg-config finds PMIx (libpmix-dev), beside the library.
HAVE_PMIX := $(shell pkg-config --exists pmix 2>/dev/null && echo yes)
PMIX_PLUGIN := $(BUILD)/libshmemcomm-pmix.so.0
# scripts/bench-bootstrap's program: the bootstrap alone (its run path finds the PMIx plugin)
BOOT_BENCH := $(BUILD)/tools/bench/bootstrap

BIN := $(BUILD)/bin
TOOLS := $(BIN)/shmemrun $(BIN)/oshrun $(BIN)/oshcc $(BIN)/shmemcomm-latency $(BIN)/shmemcomm-perf \
	$(BIN)/shmemctl
GENL := $(BUILD)/tools/shmemctl/genl.o

# The PyTorch backend (torch/): built where python3 imports torch 2.x. On
# Debian 12 that is the trixie root: scripts/torch-root run make torch.
TORCH_PYTHON ?= python3
HAVE_TORCH := $(shell $(TORCH_PYTHON) -c 'import torch.distributed' >/dev/null 2>&1 && echo yes)
TORCH_PKG := $(BUILD)/torch/shmemcomm_torch
TORCH_EXT := $(TORCH_PKG)/_C.so

.PHONY: all kmod kmod-mutant check run checkpatch clean install uninstall dkms-source torch
all: $(LIB) $(SHARED) $(UNIT_TESTS) $(GUEST_TESTS) $(GUEST_PROVIDER) $(TOOLS) $(MP_TESTS) $(EXAMPLES) \
	$(if $(HAVE_TORCH),torch) $(if $(HAVE_PMIX),$(PMIX_PLUGIN)) $(BOOT_BENCH)

$(BOOT_BENCH): tools/bench/bootstrap.c tools/bench/sockets.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LIB) -Wl,-rpath,$(CURDIR)/$(BUILD) -libverbs -lm

$(PMIX_PLUGIN): lib/boot/pmix/pmix.c lib/boot/plugin.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -shared -Wl,-soname,libshmemcomm-pmix.so.0 -Wl,-z,defs \
		$$(pkg-config --cflags pmix) -o $@ $< $$(pkg-config --libs pmix)

torch: $(TORCH_EXT) $(TORCH_PKG)/__init__.py

# Where $(TORCH_PYTHON) has no torch 2.x, say what to do (not a compiler error)
.PHONY: torch-python
torch-python:
	@$(TORCH_PYTHON) torch/flags.py check >/dev/null

$(TORCH_PKG)/__init__.py: torch/shmemcomm_torch/__init__.py
	@mkdir -p $(dir $@)
	cp $< $@

# The library is linked in whole (its PIC objects), so the package needs
# nothing else of ours at run time; its symbols stay inside.
$(TORCH_EXT): torch/backend.cpp torch/engine.c torch/engine.h torch/heap.c torch/heap.h \
	      torch/flags.py $(PIC_OBJS) | torch-python
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPPFLAGS) -fPIC -c -o $(BUILD)/torch/engine.o torch/engine.c
	$(CC) $(CFLAGS) $(CPPFLAGS) -fPIC -c -o $(BUILD)/torch/heap.o torch/heap.c
	$(CXX) -O2 -g -std=c++17 -fPIC -Wall -Wextra -Werror -Wno-unused-parameter \
		-Iinclude -Itorch $$($(TORCH_PYTHON) torch/flags.py cflags) \
		-c -o $(BUILD)/torch/backend.o torch/backend.cpp
	@rm -f $(BUILD)/torch/libshmemcomm-pic.a && ar rcs $(BUILD)/torch/libshmemcomm-pic.a $(PIC_OBJS)
	$(CXX) -shared -o $@ $(BUILD)/torch/backend.o $(BUILD)/torch/engine.o $(BUILD)/torch/heap.o \
		$(BUILD)/torch/libshmemcomm-pic.a -Wl,--exclude-libs,ALL \
		$$($(TORCH_PYTHON) torch/flags.py ldflags) -libverbs -lm -pthread

$(BIN)/shmemctl: $(BUILD)/tools/shmemctl/shmemctl.o $(GENL)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ -lmnl

$(BUILD)/tools/shmemctl/shmemctl.o: CPPFLAGS += -DSHMEMCOMM_VERSION='"$(VERSION)"'

$(BIN)/shmemrun: $(BUILD)/tools/shmemrun.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^

$(BIN)/shmemcomm-latency: tools/shmemcomm_latency.c $(LIB) $(BIN)/oshcc
	$(BIN)/oshcc $(CFLAGS) -o $@ $<

$(BIN)/shmemcomm-perf: tools/shmemcomm_perf.c $(LIB) $(BIN)/oshcc
	$(BIN)/oshcc $(CFLAGS) -o $@ $<

$(BIN)/oshrun: $(BIN)/shmemrun
	ln -sf shmemrun $@

# oshcc with its include and library folders: $(call make_oshcc,INCLUDEDIR,LIBDIR)
make_oshcc = mkdir -p $(dir $@) && sed -e 's|@INCLUDEDIR@|$(1)|' -e 's|@LIBDIR@|$(2)|' $< >$@ && chmod +x $@

# In the build tree oshcc points at the tree; make install points it at PREFIX.
$(BIN)/oshcc: tools/oshcc.in
	$(call make_oshcc,$(CURDIR)/include,$(CURDIR)/$(BUILD))

# Multi-process tests and the standard examples: OpenSHMEM programs, built
# with oshcc like a user's, run under shmemrun.
$(BUILD)/tests/mp/%: tests/mp/%.c $(LIB) $(BIN)/oshcc
	@mkdir -p $(dir $@)
	$(BIN)/oshcc $(CFLAGS) -Itests/common -o $@ $<

$(BUILD)/tests/examples/%: tests/examples/%.c $(LIB) $(BIN)/oshcc
	@mkdir -p $(dir $@)
	$(BIN)/oshcc $(CFLAGS) -o $@ $<

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

# made anew: ar only adds and replaces, so an object whose source is gone would stay in it
$(LIB): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -MMD -MP -c -o $@ $<

$(SHARED): $(PIC_OBJS) lib/libshmemcomm.map
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared -Wl,-soname,libshmemcomm.so.$(SOVERSION) \
		-Wl,--version-script,lib/libshmemcomm.map -Wl,-z,defs \
		-o $@ $(PIC_OBJS) -libverbs -lm

# Host unit tests link the library built once more, with the sanitizers.
SAN_LIB := $(BUILD)/san/libshmemcomm-san.a
SAN_OBJS := $(LIB_SRCS:%.c=$(BUILD)/san/%.o)

$(BUILD)/san/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SANITIZE) -MMD -MP -c -o $@ $<

$(SAN_LIB): $(SAN_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/tests/unit/%: tests/unit/%.c $(SAN_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SANITIZE) -MMD -MP -o $@ $< $(SAN_LIB) -libverbs -lm

# A 32-bit static program: the ioctls through compat_ioctl.
$(GUEST_COMPAT32): tests/guest/compat32.c tests/guest/guest.c lib/mem/kmod.c lib/util/log.c \
		lib/util/env.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -m32 -static -o $@ $^ -lm

$(BUILD)/tests/guest/%: $(BUILD)/tests/guest/%.o $(GUEST_HELPERS) $(LIB) $(BUILD)/tests/guest/verbs.o
	$(CC) $(CFLAGS) -o $@ $(filter-out %/verbs.o,$^) $(GUEST_LIBS_$*)

$(BUILD)/tests/guest/netlink: $(GENL)
$(GUEST_PROVIDER): tests/guest/vgem_provider.c include/shmemx.h tests/common/vgem.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -shared -o $@ $<
$(BUILD)/tests/guest/kill_cycles $(BUILD)/tests/guest/kill_cycles_device: $(BUILD)/tests/guest/cycles.o
$(BUILD)/tests/guest/netlink.o: CPPFLAGS += -Itools

# Kbuild writes its objects beside the sources; a tree of links under
# build/kbuild/KVER/ keeps them out of kmod/, one tree per kernel, with the
# guest tests' dma-buf importer (tests/guest/importer) in test-importer/.
# build/shmemcomm.ko is the last one built.
KBUILD_TREE := $(BUILD)/kbuild/$(KVER)
kmod:
	@mkdir -p $(KBUILD_TREE)/kmod $(KBUILD_TREE)/test-importer
	@ln -sfn $(CURDIR)/uapi $(KBUILD_TREE)/uapi
	@ln -sf $(CURDIR)/Kbuild $(KBUILD_TREE)/Kbuild
	@for f in $(filter-out %.mod.c,$(wildcard kmod/*.c kmod/*.h)) kmod/Kbuild; do ln -sf $(CURDIR)/$$f $(KBUILD_TREE)/$$f; done
	@for f in tests/guest/importer/*; do ln -sf $(CURDIR)/$$f $(KBUILD_TREE)/test-importer/; done
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(KBUILD_TREE) modules
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(KBUILD_TREE)/test-importer modules
	@ln -sf kbuild/$(KVER)/kmod/shmemcomm.ko $(BUILD)/shmemcomm.ko

# The module with map_dma_buf's revoke check taken out, which the guest
# tests must catch (tests/guest/run-tests loads it last). Never installed.
MUTANT_TREE := $(KBUILD_TREE)/mutant-map-revoke
kmod-mutant:
	@mkdir -p $(MUTANT_TREE)/kmod
	@ln -sfn $(CURDIR)/uapi $(MUTANT_TREE)/uapi
	@ln -sf $(CURDIR)/Kbuild $(MUTANT_TREE)/Kbuild
	@for f in $(filter-out kmod/dmabuf.c %.mod.c,$(wildcard kmod/*.c kmod/*.h)) kmod/Kbuild; do ln -sf $(CURDIR)/$$f $(MUTANT_TREE)/$$f; done
	@sed '/^static struct sg_table \*shmemcomm_dmabuf_map(/,/^}/ s/err = shmemcomm_access_error(rf);/err = 0;/' \
		kmod/dmabuf.c >$(MUTANT_TREE)/kmod/dmabuf.c
	@! cmp -s kmod/dmabuf.c $(MUTANT_TREE)/kmod/dmabuf.c || \
		{ echo "kmod-mutant: map_dma_buf's revoke check not found in kmod/dmabuf.c" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(MUTANT_TREE) modules

check:
	scripts/check

run:
	scripts/run

checkpatch:
	perl $(shell . scripts/lib.sh && checkpatch) --strict --no-tree --terse -f \
		$(wildcard kmod/*.[ch] uapi/linux/*.h)

# ---- install ----
PREFIX ?= /usr/local
bindir ?= $(PREFIX)/bin
libdir ?= $(PREFIX)/lib
includedir ?= $(PREFIX)/include
mandir ?= $(PREFIX)/share/man
pkgconfigdir ?= $(libdir)/pkgconfig
# udev reads rules from /etc and /usr/lib only, whatever the prefix
udevrulesdir ?= /etc/udev/rules.d
dkmsdir ?= /usr/src/shmemcomm-$(VERSION)
MAN_PAGES := $(wildcard docs/man/*.[1-8])

$(BUILD)/install/oshcc: tools/oshcc.in
	$(call make_oshcc,$(includedir),$(libdir))

$(BUILD)/install/shmemcomm.pc: lib/shmemcomm.pc.in Makefile
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(libdir)|' \
		-e 's|@INCLUDEDIR@|$(includedir)|' -e 's|@VERSION@|$(VERSION)|' $< >$@

# Rebuilt on every install: the paths inside depend on PREFIX.
.PHONY: $(BUILD)/install/oshcc $(BUILD)/install/shmemcomm.pc

# where make install puts the PyTorch package: python3's site-packages for platform code
TORCH_PLATLIB = $(shell $(TORCH_PYTHON) torch/flags.py platlib)

install: $(if $(HAVE_TORCH),torch) $(if $(HAVE_PMIX),$(PMIX_PLUGIN)) $(LIB) $(SHARED) $(BIN)/shmemrun $(BIN)/shmemctl $(BIN)/shmemcomm-perf $(BUILD)/install/oshcc \
		$(BUILD)/install/shmemcomm.pc
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(libdir) $(DESTDIR)$(includedir) \
		$(DESTDIR)$(pkgconfigdir) $(DESTDIR)$(udevrulesdir)
	install -m 644 $(LIB) $(DESTDIR)$(libdir)/
	install -m 755 $(SHARED) $(DESTDIR)$(libdir)/
	ln -sf libshmemcomm.so.$(VERSION) $(DESTDIR)$(libdir)/libshmemcomm.so.$(SOVERSION)
	ln -sf libshmemcomm.so.$(SOVERSION) $(DESTDIR)$(libdir)/libshmemcomm.so
	$(if $(HAVE_PMIX),install -m 755 $(PMIX_PLUGIN) $(DESTDIR)$(libdir)/)
	install -m 644 include/shmem.h include/shmemx.h $(DESTDIR)$(includedir)/
	install -m 644 $(BUILD)/install/shmemcomm.pc $(DESTDIR)$(pkgconfigdir)/
	install -m 755 $(BIN)/shmemrun $(BIN)/shmemctl $(BIN)/shmemcomm-perf $(BUILD)/install/oshcc \
		$(DESTDIR)$(bindir)/
	ln -sf shmemrun $(DESTDIR)$(bindir)/oshrun
	for page in $(MAN_PAGES); do \
		section=$${page##*.}; \
		install -d $(DESTDIR)$(mandir)/man$$section && \
		install -m 644 $$page $(DESTDIR)$(mandir)/man$$section/ || exit 1; \
	done
	install -m 644 kmod/99-shmemcomm.rules $(DESTDIR)$(udevrulesdir)/
ifneq ($(HAVE_TORCH),)
	install -d $(DESTDIR)$(TORCH_PLATLIB)/shmemcomm_torch
	install -m 644 $(TORCH_PKG)/__init__.py $(DESTDIR)$(TORCH_PLATLIB)/shmemcomm_torch/
	install -m 755 $(TORCH_EXT) $(DESTDIR)$(TORCH_PLATLIB)/shmemcomm_torch/
endif

# Removes what install put there, with the same PREFIX and DESTDIR.
uninstall:
	rm -f $(DESTDIR)$(libdir)/libshmemcomm.a $(DESTDIR)$(libdir)/libshmemcomm.so \
		$(DESTDIR)$(libdir)/libshmemcomm.so.$(SOVERSION) \
		$(DESTDIR)$(libdir)/libshmemcomm.so.$(VERSION) \
		$(DESTDIR)$(libdir)/libshmemcomm-pmix.so.0 \
		$(DESTDIR)$(includedir)/shmem.h $(DESTDIR)$(includedir)/shmemx.h \
		$(DESTDIR)$(pkgconfigdir)/shmemcomm.pc \
		$(addprefix $(DESTDIR)$(bindir)/,shmemrun oshrun oshcc shmemctl shmemcomm-perf) \
		$(DESTDIR)$(udevrulesdir)/99-shmemcomm.rules
	for page in $(MAN_PAGES); do \
		rm -f $(DESTDIR)$(mandir)/man$${page##*.}/$${page##*/}; \
	done
ifneq ($(HAVE_TORCH),)
	rm -rf $(DESTDIR)$(TORCH_PLATLIB)/shmemcomm_torch
endif

# What dkms needs to build the module for each kernel: the Kbuild files,
# kmod/ without its KUnit files, uapi/, and dkms.conf.
dkms-source:
	install -d $(DESTDIR)$(dkmsdir)/kmod $(DESTDIR)$(dkmsdir)/uapi/linux
	install -m 644 Kbuild $(DESTDIR)$(dkmsdir)/
	install -m 644 kmod/Kbuild $(filter-out %_kunit.c,$(wildcard kmod/*.c)) kmod/*.h \
		$(DESTDIR)$(dkmsdir)/kmod/
	install -m 644 uapi/linux/*.h $(DESTDIR)$(dkmsdir)/uapi/linux/
	install -m 644 dkms.conf $(DESTDIR)$(dkmsdir)/

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
