// The shim is all in its header (include/CZlibShim.h); a C target needs one source file.
#include "CZlibShim.h"
