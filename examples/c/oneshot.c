/*
 * The SDMAC paper's one-shot measurement loop in C, on any backend: N confirmed
 * one-shots (one try each) at one rate to the interface's BSS, then the count of
 * each status and the median latency t9 - t1. It prints the same lines as
 * examples/api/oneshot.py, the same loop in Python. With --clock virtual (emu only)
 * the medium runs on the virtual clock, and the two print exactly the same lines.
 *
 *   usage: oneshot [--clock wall|virtual] BACKEND [COUNT [RATE [PAYLOAD]]]
 *   e.g.   oneshot emu 200 54 50
 *          oneshot --clock virtual emu 200
 *
 * Build (after `make build`, from the repository root):
 *   cc -std=c11 -Wall -Icrates/sdmac-c/include examples/c/oneshot.c \
 *      -Ltarget/release -lsdmac -Wl,-rpath,$PWD/target/release -o oneshot
 * or statically:
 *   cc -std=c11 -Wall -Icrates/sdmac-c/include examples/c/oneshot.c \
 *      target/release/libsdmac.a -lpthread -ldl -lm -o oneshot
 */

#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sdmac.h"

static const char *STATUS_NAMES[] = {"acked", "ack_timeout", "sent", "dropped", "no_report"};

static int fail(const char *what, sdmac_error e) {
    fprintf(stderr, "error: %s: %s (%s)\n", what, sdmac_last_error(), sdmac_strerror(e));
    return 1;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int parse_mac(const char *s, uint8_t out[6]) {
    unsigned b[6];
    if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) != 6) return -1;
    for (int i = 0; i < 6; i++) out[i] = (uint8_t)b[i];
    return 0;
}

int main(int argc, char **argv) {
    const char *prog = argv[0];
    sdmac_open_options opts;
    sdmac_open_options_init(&opts);
    if (argc > 2 && strcmp(argv[1], "--clock") == 0) {
        if (strcmp(argv[2], "wall") == 0) {
            opts.clock = SDMAC_CLOCK_WALL;
        } else if (strcmp(argv[2], "virtual") == 0) {
            opts.clock = SDMAC_CLOCK_VIRTUAL;
        } else {
            fprintf(stderr, "error: --clock %s: expected wall or virtual\n", argv[2]);
            return 2;
        }
        argc -= 2;
        argv += 2;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: %s [--clock wall|virtual] BACKEND [COUNT [RATE [PAYLOAD]]]\n", prog);
        return 2;
    }
    const char *backend = argv[1];
    long count = argc > 2 ? strtol(argv[2], NULL, 10) : 200;
    const char *rate = argc > 3 ? argv[3] : "54";
    long payload = argc > 4 ? strtol(argv[4], NULL, 10) : 50;
    if (count < 1 || payload < 0 || payload > 2304) {
        fprintf(stderr, "error: COUNT must be >= 1 and PAYLOAD within 0..2304\n");
        return 2;
    }

    sdmac_iface *h = NULL;
    sdmac_error e = sdmac_open_with(backend, &opts, &h);
    if (e != SDMAC_OK) return fail("open", e);

    char bssid[32];
    e = sdmac_get(h, "bssid", SDMAC_SCOPE_ADAPTER, 0, bssid, sizeof bssid);
    if (e != SDMAC_OK) return fail("get bssid", e);

    char series[48];
    snprintf(series, sizeof series, "%sx1", rate);
    sdmac_tx_attrs attrs;
    sdmac_tx_attrs_init(&attrs);
    attrs.has_dst = 1;
    if (parse_mac(bssid, attrs.dst) != 0) {
        fprintf(stderr, "error: bssid %s is not a MAC address\n", bssid);
        return 1;
    }
    attrs.rates = series;

    unsigned char *body = calloc((size_t)payload + 1, 1);
    uint64_t *latency = calloc((size_t)count, sizeof *latency);
    if (!body || !latency) return 1;
    memset(body, 0x5a, (size_t)payload);
    long counts[5] = {0, 0, 0, 0, 0};
    long n_latency = 0;
    const struct timespec gap = {0, 250000}; /* 250 µs after each confirmation */

    for (long i = 1; i <= count; i++) {
        e = sdmac_data_req(h, (uint64_t)i, body, (size_t)payload, &attrs);
        if (e != SDMAC_OK) return fail("data_req", e);
        sdmac_confirmation c;
        e = sdmac_data_con(h, 5000000000LL, &c);
        if (e != SDMAC_OK) return fail("data_con", e);
        if (c.status >= SDMAC_STATUS_ACKED && c.status <= SDMAC_STATUS_NO_REPORT) counts[c.status]++;
        if (c.ts.t1 != 0 && c.ts.t9 != 0) latency[n_latency++] = c.ts.t9 - c.ts.t1;
        nanosleep(&gap, NULL);
    }

    printf("backend: %s\n", backend);
    printf("one-shots: %ld at %s Mb/s, %ld B, to %s\n", count, rate, payload, bssid);
    for (int s = 0; s < 5; s++) printf("%s: %ld\n", STATUS_NAMES[s], counts[s]);
    if (n_latency > 0) {
        qsort(latency, (size_t)n_latency, sizeof *latency, cmp_u64);
        double med = n_latency % 2 ? (double)latency[n_latency / 2]
                                   : ((double)latency[n_latency / 2 - 1] + (double)latency[n_latency / 2]) / 2.0;
        printf("latency median (t9 - t1): %.1f us\n", med / 1000.0);
    }
    free(body);
    free(latency);
    e = sdmac_close(h);
    if (e != SDMAC_OK) return fail("close", e);
    return 0;
}
