/* simavr harness for the LED board firmware: runs the ELF on a simulated ATmega328P at 16 MHz,
 * bridges UART0 to a pseudo-terminal (the host opens it exactly like /dev/ttyUSB0) and decodes the
 * WS2812 data pin (PD6) so tests can assert which LEDs are lit in what colour.
 *
 * Licence: this program links libsimavr/libsimavrparts (GPLv3), so the built binary is GPLv3; it is
 * a separate program that the MIT-licensed package only runs as a subprocess.
 *
 * stdout, one line per fact:
 *   PTY <path>                         the pty to open (never use /tmp/simavr-uart0: it is shared)
 *   LEDS <cycle> <n> RRGGBB ...         a latched WS2812 frame (cycle = simulated clock at latch)
 *   BITS <cycle> <n>                    a latched burst whose bit count is not a multiple of 24
 *   PRESSED <button> / RELEASED <button>
 *   EXIT <state>                        the firmware stopped (crash or sleep with interrupts off)
 * stdin commands: "press N" (N = 0..3 -> PD2..PD5 held low for 80 ms), "quit".
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "avr_ioport.h"
#include "avr_uart.h"
#include "sim_avr.h"
#include "sim_elf.h"
#include "sim_irq.h"
#include "uart_pty.h"

#define DATA_PORT 'D'
#define DATA_PIN 6
#define BUTTON_PIN0 2
#define BUTTONS 4
#define MAX_BITS (256 * 24)
#define LATCH_US 50
#define ONE_NS 600 /* a high pulse longer than this is a 1 bit */

static avr_t *avr;
static uart_pty_t pty;
static uint8_t bits[MAX_BITS / 8];
static unsigned nbits;
static int level;
static avr_cycle_count_t rise;
static avr_irq_t *button_irq[BUTTONS];

static avr_cycle_count_t latch(struct avr_t *a, avr_cycle_count_t when, void *param)
{
    (void)param;
    (void)a;
    if (nbits % 24 || nbits == 0) {
        printf("BITS %llu %u\n", (unsigned long long)when, nbits);
    } else {
        unsigned n = nbits / 24;
        printf("LEDS %llu %u", (unsigned long long)when, n);
        for (unsigned i = 0; i < n; i++) {
            const uint8_t *grb = bits + i * 3;
            printf(" %02x%02x%02x", grb[1], grb[0], grb[2]);
        }
        printf("\n");
    }
    fflush(stdout);
    nbits = 0;
    memset(bits, 0, sizeof bits);
    return 0;
}

static void data_pin(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    value = value ? 1 : 0;
    if ((int)value == level)
        return;
    level = value;
    if (value) {
        rise = avr->cycle;
        avr_cycle_timer_cancel(avr, latch, NULL);
        return;
    }
    uint64_t high_ns = (avr->cycle - rise) * 1000000000ULL / avr->frequency;
    if (nbits < MAX_BITS) {
        if (high_ns > ONE_NS)
            bits[nbits / 8] |= 0x80 >> (nbits % 8);
        nbits++;
    }
    avr_cycle_timer_register_usec(avr, LATCH_US, latch, NULL);
}

static avr_cycle_count_t release_button(struct avr_t *a, avr_cycle_count_t when, void *param)
{
    (void)a;
    (void)when;
    int b = (int)(intptr_t)param;
    avr_raise_irq(button_irq[b], 1);
    printf("RELEASED %d\n", b);
    fflush(stdout);
    return 0;
}

static void command(char *line)
{
    int b;
    if (sscanf(line, "press %d", &b) == 1 && b >= 0 && b < BUTTONS) {
        avr_raise_irq(button_irq[b], 0);
        printf("PRESSED %d\n", b);
        fflush(stdout);
        avr_cycle_timer_register_usec(avr, 80000, release_button, (void *)(intptr_t)b);
    } else if (strncmp(line, "quit", 4) == 0) {
        exit(0);
    } else {
        fprintf(stderr, "harness: unknown command: %s\n", line);
    }
}

static void poll_stdin(void)
{
    static char buf[256];
    static size_t len;
    struct pollfd p = {.fd = 0, .events = POLLIN};
    if (poll(&p, 1, 0) <= 0)
        return;
    ssize_t n = read(0, buf + len, sizeof buf - 1 - len);
    if (n <= 0) {
        if (n == 0)
            exit(0); /* the test that started us is gone */
        return;
    }
    len += n;
    char *nl;
    while ((nl = memchr(buf, '\n', len))) {
        *nl = 0;
        command(buf);
        len -= nl + 1 - buf;
        memmove(buf, nl + 1, len);
    }
    if (len == sizeof buf - 1)
        len = 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s firmware.elf\n", argv[0]);
        return 2;
    }
    elf_firmware_t f;
    memset(&f, 0, sizeof f);
    if (elf_read_firmware(argv[1], &f) != 0) {
        fprintf(stderr, "harness: cannot read %s\n", argv[1]);
        return 2;
    }
    if (!f.mmcu[0])
        strcpy(f.mmcu, "atmega328p");
    if (!f.frequency)
        f.frequency = 16000000;
    avr = avr_make_mcu_by_name(f.mmcu);
    if (!avr) {
        fprintf(stderr, "harness: unknown MCU %s\n", f.mmcu);
        return 2;
    }
    avr_init(avr);
    avr->log = 0;
    avr_load_firmware(avr, &f);

    uint32_t flags = 0;
    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
    flags &= ~(AVR_UART_FLAG_POLL_SLEEP | AVR_UART_FLAG_STDIO);
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);

    /* uart_pty prints its own banner on stdout: keep our stdout parseable by silencing it */
    fflush(stdout);
    int saved = dup(1);
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    uart_pty_init(avr, &pty);
    uart_pty_connect(&pty, '0');
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    close(devnull);

    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(DATA_PORT), DATA_PIN), data_pin, NULL);
    for (int b = 0; b < BUTTONS; b++) {
        button_irq[b] = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(DATA_PORT), BUTTON_PIN0 + b);
        avr_raise_irq(button_irq[b], 1); /* released: the pull-up holds the pin high */
    }

    printf("PTY %s\n", pty.port[0].slavename);
    fflush(stdout);

    unsigned long steps = 0;
    for (;;) {
        int state = avr_run(avr);
        if (state == cpu_Done || state == cpu_Crashed) {
            printf("EXIT %d\n", state);
            fflush(stdout);
            break;
        }
        if ((++steps & 0x3FF) == 0)
            poll_stdin();
    }
    uart_pty_stop(&pty);
    return 0;
}
