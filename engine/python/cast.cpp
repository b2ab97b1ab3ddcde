#include "engine/python/cast.h"

#include <string>

namespace kiln::py {

const char* objTypeName(VK k) {
  switch (k) {
    case VK::None: return "None";
    case VK::Bool: return "BoolObj";
    case VK::Int: return "IntObj";
    case VK::Float: return "FloatObj";
    case VK::Str: return "StrObj";
    case VK::Tuple: return "TupleObj";
    case VK::List: return "ListObj";
    case VK::Dict: return "DictObj";
    case VK::Function: return "FunctionObj";
    case VK::Builtin: return "BuiltinObj";
    case VK::Class: return "ClassObj";
    case VK::Instance: return "InstanceObj";
    case VK::Module: return "ModuleObj";
    case VK::BoundMethod: return "BoundMethodObj";
    case VK::Tensor: return "TensorObj";
    case VK::DType: return "DTypeObj";
    case VK::Slice: return "SliceObj";
    case VK::Ellipsis: return "Ellipsis";
    case VK::Iterator: return "IteratorObj";
    case VK::Generator: return "GeneratorObj";
  }
  return "?";
}

void throwBadObjCast(VK want, VK got, const char* file, int line) {
  std::string where = file;
  for (const char* top : {"engine/", "tests/", "app/"})  // repo-relative
    if (auto at = where.rfind(top); at != std::string::npos) {
      where.erase(0, at);
      break;
    }
  throw BadObjCast(std::string("bad object cast: expected a ") + objTypeName(want) + ", got a " + objTypeName(got) + " at " + where + ":" +
                   std::to_string(line));
}

}  // namespace kiln::py
