// Only the header matters: LLVMFuzzerRunDriver is defined by libFuzzer. SwiftPM needs one source file per C target.
#include "CLibFuzzer.h"
