// C++ with exceptions through instrumented frames: GCC calls the exit hook
// of every frame the unwinder leaves (calls and returns stay balanced),
// Clang does not (the frames stay open). Names are demangled in the
// manifest (__cxa_demangle).
#include <cstdio>
#include <stdexcept>
#include <string>

namespace life {

struct Thrower {
    __attribute__((noinline)) int go(int depth)
    {
        if (depth == 0)
            throw std::runtime_error("bottom");
        return go(depth - 1) + 1;
    }
};

__attribute__((noinline)) int catcher(int i)
{
    Thrower t;
    try {
        return t.go(5 + i % 3);
    } catch (const std::exception &) {
        return -1;
    }
}

} // namespace life

int main()
{
    int s = 0;
    for (int i = 0; i < 50; i++)
        s += life::catcher(i);
    std::printf("%d\n", s);
    return s == -50 ? 0 : 1;
}
