# make ARCH=arm64 on another machine (Debian's multiarch): the tools for
# that machine in their own tree, build-$(ARCH). BPF objects are made as
# for the host, with the vendored include/vmlinux/$(ARCH)/vmlinux.h and
# -D__TARGET_ARCH_$(ARCH); bpftool (skeletons) and docgen (man pages,
# completion) run on the host. make deps ARCH=arm64 installs what it
# needs (scripts/install-deps.sh arm64).

TRIPLET_arm64 := aarch64-linux-gnu
# its 32-bit callers (the VM's compat checks): arm32, Debian's armhf
TRIPLET32_arm64 := arm-linux-gnueabihf
DEB_ARCH_arm64 := arm64
TRIPLET    := $(TRIPLET_$(ARCH))
ifeq ($(TRIPLET),)
$(error ARCH=$(ARCH): no cross build for it (cross.mk knows arm64))
endif
CROSS      := $(ARCH)
OUT        := build-$(ARCH)
DEB_ARCH   := $(DEB_ARCH_$(ARCH))
# dpkg-buildflags and dpkg-shlibdeps for that machine
DEB_HOST   := DEB_HOST_ARCH=$(DEB_ARCH)
# clang, as Debian's gcc cross compilers conflict with gcc-multilib
# (the host tests' 32-bit callers); CC=$(TRIPLET)-gcc where it is
# installed (not tried here)
ifeq ($(origin CC),default)
CC         := $(CLANG) --target=$(TRIPLET)
# clang's -Wextra (like the fuzz build's): { 0 }-style initializers
CROSS_CFLAGS := -Wno-missing-field-initializers
endif
CC32       := $(CLANG) --target=$(TRIPLET32_$(ARCH))
STRIP      := $(TRIPLET)-strip
PKG_CONFIG := PKG_CONFIG_LIBDIR=/usr/lib/$(TRIPLET)/pkgconfig:/usr/share/pkgconfig pkg-config

# libgvc6 is not Multi-Arch: same in Debian 12, so it cannot be installed
# beside the host's: its package (the version of the host's graphviz
# headers) is unpacked into the tree, its dependency information with it
# for dpkg-shlibdeps. Its own libraries are the target's to resolve.
GVC_VERSION := $(shell dpkg-query -W -f='$${Version}' libgraphviz-dev 2>/dev/null)
GVC_ROOT   := $(OUT)/libgvc6
GVC_LIBS   := $(GVC_ROOT)/usr/lib/$(TRIPLET)/libgvc.so.6 -l:libcgraph.so.6 -l:libcdt.so.5 \
	      -Wl,--allow-shlib-undefined
SHLIBDEPS_FLAGS := -S$(CURDIR)/$(GVC_ROOT)

$(GVC_ROOT)/DEBIAN/shlibs:
	$(call msg,GET,libgvc6:$(DEB_ARCH) $(GVC_VERSION))
	$(Q)test -n "$(GVC_VERSION)" || { echo "libgraphviz-dev is not installed (make deps)" >&2; exit 1; }
	$(Q)rm -rf $(GVC_ROOT) $(GVC_ROOT).get && mkdir -p $(GVC_ROOT).get
	$(Q)cd $(GVC_ROOT).get && apt-get download -q libgvc6:$(DEB_ARCH)=$(GVC_VERSION) >/dev/null
	$(Q)dpkg-deb -R $(GVC_ROOT).get/libgvc6_*.deb $(GVC_ROOT)
# pipestat links it, make deb reads its shlibs
$(OUT)/bin/pipestat deb: | $(GVC_ROOT)/DEBIAN/shlibs
