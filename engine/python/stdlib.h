// The standard library modules Kiln's interpreter provides in Python (engine/python/lib/*.py:
// functools, itertools, collections, contextlib, dataclasses, enum, operator, typing ...),
// written from their documented behaviour. Each file is the module of the same name
// ("collections.abc.py" is collections.abc); a module is run when a script first imports it.
//
// KILN_PYLIB_DIR=DIR makes the interpreter read the files from DIR instead of the copies
// embedded at build time (while working on them, without rebuilding).
#pragma once

#include <string>
#include <vector>

namespace kiln::py {

struct LibFile {
  const char* module;    // "collections"
  const char* fileName;  // "collections.py"
  const char* source;
};

const std::vector<LibFile>& embeddedLibFiles();  // generated at build time

// The source of standard library module `name`, or false when Kiln has none.
bool stdlibSource(const std::string& name, std::string& source, std::string& fileName);

}  // namespace kiln::py
