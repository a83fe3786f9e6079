# Gatehouse: two commands for a fresh machine.
#   make run   installs what is missing, builds (release) and serves on SQLite with the demo set-up
#   make test  installs what is missing and runs every test
#   make package  builds the Debian package (dist/gatehouse_<version>_<arch>.deb)
SHELL := /bin/bash
SWIFT ?= swift

.PHONY: run test build release package bootstrap bootstrap-serve bench clean

bootstrap:
	@scripts/bootstrap test

bootstrap-serve:
	@scripts/bootstrap serve

build: bootstrap
	$(SWIFT) build

# The Swift standard library is linked statically (as the Debian package ships it), so `make run` and
# `make package` share one release build.
release: bootstrap-serve
	$(SWIFT) build -c release --product gatehouse --static-swift-stdlib

# dist/gatehouse_<version>_<arch>.deb (see docs/packaging.md)
package:
	@scripts/bootstrap package
	@scripts/package

run: release
	@echo "Gatehouse on $${GATEHOUSE_PUBLIC_URL:-http://127.0.0.1:8080} (Ctrl-C stops it)"
	GATEHOUSE_DEMO=$${GATEHOUSE_DEMO:-1} .build/release/gatehouse serve

test: bootstrap
	@scripts/test

bench: bootstrap
	bench/http.sh

clean:
	rm -rf .build
