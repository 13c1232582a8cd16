/* An instrumented object that life.c loads with dlopen(). */
#define NOINLINE __attribute__((noinline))
static volatile int plugin_sink;

void plugin_inner(int i);
void plugin_work(int n);

NOINLINE void plugin_inner(int i)
{
    plugin_sink += i;
}

NOINLINE void plugin_work(int n)
{
    for (int i = 0; i < n; i++)
        plugin_inner(i);
}
