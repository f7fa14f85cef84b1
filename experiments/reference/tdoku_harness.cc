// The external reference of experiments/bench_user_path.toml: times tdoku's fastest solver
// (TdokuSolverDpllTriadSimd, github.com/t-dillon/tdoku, BSD-2-Clause; not part of this
// repository) counting solutions up to 2 (a uniqueness check) on each line of stdin, and prints
// the median of REPEAT timed runs per puzzle in microseconds, then the count. Build: see the
// config.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>
extern "C" size_t TdokuSolverDpllTriadSimd(const char *input, size_t limit, uint32_t configuration,
                                         char *solution, size_t *num_guesses);
int main(int argc, char **argv) {
    int repeat = argc > 1 ? atoi(argv[1]) : 5;
    std::string line;
    char sol[82];
    while (std::getline(std::cin, line)) {
        if (line.size() < 81) continue;
        std::vector<double> t;
        size_t n = 0, g = 0;
        for (int r = 0; r < repeat; r++) {
            auto a = std::chrono::steady_clock::now();
            n = TdokuSolverDpllTriadSimd(line.c_str(), 2, 0, sol, &g);
            auto b = std::chrono::steady_clock::now();
            t.push_back(std::chrono::duration<double, std::micro>(b - a).count());
        }
        std::sort(t.begin(), t.end());
        printf("%.3f %zu\n", t[t.size() / 2], n);
        fflush(stdout);
    }
}
