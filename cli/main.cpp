// Entry point (replaced by the full CLI).
int main() { return 0; }
