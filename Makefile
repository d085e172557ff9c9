# Thin wrapper over CMake for the README's two commands.
#   make        build everything (Release) and run the main job: ./build/pscan
#   make test   build and run the whole test suite (ctest), then the Python package's pytest suite
BUILD ?= build
JOBS  ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all run build test clean
all: run

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

run: build
	./$(BUILD)/pscan

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD)

# The Python package (python/): built into a virtual environment, tested with pytest.
PYENV ?= $(BUILD)/pyenv
.PHONY: python-test
test: python-test
python-test:
	scripts/python-test.sh $(PYENV)
