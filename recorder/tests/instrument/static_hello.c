/* Linked with -static: `atf record` must refuse it with one clear line. */
int main(void)
{
    return 0;
}
