/* simavr harness for the LED board firmware: runs the ELF on a simulated ATmega328P at 16 MHz,
 * bridges UART0 to a pseudo-terminal (the host opens it exactly like /dev/ttyUSB0) and decodes the
 * WS2812 data pin (PD6) so tests can assert which LEDs are lit in what colour.
 *
 * Licence: this program links libsimavr (GPLv3), so the built binary is GPLv3; it is
 * a separate program that the MIT-licensed package only runs as a subprocess.
 *
 * stdout, one line per fact:
 *   PTY <path>                         the pty to open (never use /tmp/simavr-uart0: it is shared)
 *   LEDS <cycle> <n> RRGGBB ...         a latched WS2812 frame (cycle = simulated clock at latch)
 *   BITS <cycle> <n>                    a latched burst whose bit count is not a multiple of 24
 *   PRESSED <button> / RELEASED <button>
 *   EXIT <state>                        the firmware stopped (crash or sleep with interrupts off)
 *   OVERRUN <cycle> <total>             a host byte lost: it completed while two received bytes were
 *                                       still unread (the ATmega328P's data overrun)
 *   RX0 <cycle> / TX0 <cycle>           with LEDBOARD_SIM_FRAMES=1: a 0x00 frame delimiter entering /
 *                                       leaving the UART (frame timing on the simulated clock)
 * stdin commands: "press N" (N = 0..3 -> PD2..PD5 held low for 80 ms), "quit". The harness exits
 * when its stdin closes (the process that started it is gone), so keep stdin open.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <termios.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "avr_ioport.h"
#include "avr_uart.h"
#include "sim_avr.h"
#include "sim_elf.h"
#include "sim_irq.h"

#define DATA_PORT 'D'
#define DATA_PIN 6
#define BUTTON_PIN0 2
#define BUTTONS 4
#define MAX_BITS (256 * 24)
#define LATCH_US 50
#define ONE_NS 600 /* a high pulse longer than this is a 1 bit */

static avr_t *avr;
static uint8_t bits[MAX_BITS / 8];
static unsigned nbits;
static int level;
static avr_cycle_count_t rise;
static avr_irq_t *button_irq[BUTTONS];
static uint8_t button_levels = ((1 << BUTTONS) - 1) << BUTTON_PIN0; /* 1 = released */

/* Drive a button pin as the outside world does. The level is also registered as the port's
 * "external" value: simavr re-applies the internal pull-up to every input pin on each PORTD write
 * (the WS2812 output writes PORTD thousands of times per refresh), which would otherwise release a
 * held button. */
static void set_button(int b, int pressed)
{
    uint8_t bit = 1 << (BUTTON_PIN0 + b);
    button_levels = pressed ? button_levels & ~bit : button_levels | bit;
    avr_ioport_external_t ext = {.name = DATA_PORT, .mask = ((1 << BUTTONS) - 1) << BUTTON_PIN0,
                                 .value = button_levels};
    avr_ioctl(avr, AVR_IOCTL_IOPORT_SET_EXTERNAL(DATA_PORT), &ext);
    avr_raise_irq(button_irq[b], !pressed);
}

/* Keep simulated time on the wall clock. simavr's default sleep batches sleeps of >= 200 us and
 * never makes up for oversleeping, so on a loaded machine each received byte (40 us at 250000 baud)
 * costs more wall time than on the wire. Sleeping to an absolute deadline makes the emulated UART
 *  run at its real rate: sleeps shorten or vanish when we are up to 0.2 ms behind; beyond that the
 * lag is dropped (a stalled machine must not make the emulated line run faster than its baud).
 * A byte arriving from the pty while the MCU sleeps (until its next 1 ms timer tick) would wait for
 * the end of that sleep; instead the sleep ends at once and the clock is rebased, as if the byte
 * had arrived at the end of the idle time. Simulated time then runs slightly ahead of the wall
 * clock (at most one tick per received frame), which firmware timeouts of seconds do not notice. */
static struct timespec wall0;
static avr_cycle_count_t cycle0;

/* ---- UART0 <-> pseudo-terminal, serviced on the simulation thread ----
 * (libsimavrparts' uart_pty does this from a second thread, which adds a thread hand-off per burst
 * and raises simavr IRQs concurrently with the core; it also rewrites the shared /tmp/simavr-uart0.) */
static int pty_master = -1, pty_slave = -1;
static char pty_name[256];
static uint8_t in_buf[4096], out_buf[65536];
static size_t in_len, in_off, out_len;
static avr_irq_t *uart_in_irq;
static int trace_frames; /* LEDBOARD_SIM_FRAMES=1: print RX0/TX0 <cycle> for every 0x00 delimiter */

static void flush_out(void)
{
    if (!out_len)
        return;
    ssize_t n = write(pty_master, out_buf, out_len);
    if (n > 0) {
        memmove(out_buf, out_buf + n, out_len - n);
        out_len -= n;
    }
}

static void uart_output(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    if (trace_frames && (value & 0xFF) == 0) {
        printf("TX0 %llu\n", (unsigned long long)avr->cycle);
        fflush(stdout);
    }
    if (out_len < sizeof out_buf) /* else the host is not reading: drop, like a real line */
        out_buf[out_len++] = value;
    flush_out();
}

/* The host -> MCU line, modelled on the wire: each host byte occupies the line for one character
 * time (10 bits at the baud rate, back to back while the host has bytes) and reaches the UART's
 * receive buffer at the end of its stop bit, whatever the firmware is doing then. Like the
 * ATmega328P's two-byte receive FIFO, at most two unread bytes wait there; a byte completing while
 * both are unread is lost and reported (OVERRUN), as a real data overrun would lose it.
 *
 * simavr 1.6 on its own would make a byte readable one character time (11 bits: it counts a parity
 * bit) after it is injected, and the firmware's read schedules the next: the line then stalls
 * whenever the firmware reads late (its WS2812 refresh runs with interrupts off for 30 us per LED),
 * which a real UART does not. So the harness keeps the line's timing itself and delivers each byte
 * with simavr's per-byte delay set to one cycle for the duration of the injection (restored at
 * once: the transmitter's timing is untouched). */
static avr_uart_t *uart0;
static int pace_armed, on_wire;
static uint8_t wire_byte;
static avr_cycle_count_t line_free; /* end of the last character put on the line */
static avr_cycle_count_t cycles_per_char;
static unsigned long overruns;

static avr_cycle_count_t pace_timer(struct avr_t *a, avr_cycle_count_t when, void *param);

static void arm_pace(avr_cycle_count_t in_cycles)
{
    if (pace_armed)
        return;
    pace_armed = 1;
    avr_cycle_timer_register(avr, in_cycles ? in_cycles : 1, pace_timer, NULL);
}

static void deliver(uint8_t b)
{
    /* unread bytes in simavr's receive fifo (its accessors are only defined inside libsimavr) */
    unsigned unread = (uart0->input.write + uart_fifo_fifo_size - uart0->input.read) & (uart_fifo_fifo_size - 1);
    if (unread >= 2) {
        overruns++;
        printf("OVERRUN %llu %lu\n", (unsigned long long)avr->cycle, overruns);
        fflush(stdout);
        return;
    }
    avr_cycle_count_t keep = uart0->cycles_per_byte;
    uart0->cycles_per_byte = 1;
    avr_raise_irq(uart_in_irq, b);
    uart0->cycles_per_byte = keep;
}

/* Advance the line: deliver the byte whose stop bit has ended, start the next one. */
static void line_step(void)
{
    if (on_wire) {
        if (avr->cycle < line_free) {
            arm_pace(line_free - avr->cycle);
            return;
        }
        on_wire = 0;
        deliver(wire_byte);
    }
    /* Host bytes wait until the firmware has enabled its receiver (a few hundred cycles after
     * reset), as if the host had opened the port after the board booted; the run loop retries. */
    if (in_off == in_len || !avr_regbit_get(avr, uart0->rxen))
        return;
    avr_cycle_count_t start = avr->cycle > line_free ? avr->cycle : line_free;
    wire_byte = in_buf[in_off++];
    on_wire = 1;
    line_free = start + cycles_per_char;
    if (trace_frames && wire_byte == 0) {
        printf("RX0 %llu\n", (unsigned long long)start);
        fflush(stdout);
    }
    arm_pace(line_free - avr->cycle);
}

static avr_cycle_count_t pace_timer(struct avr_t *a, avr_cycle_count_t when, void *param)
{
    (void)a;
    (void)when;
    (void)param;
    pace_armed = 0;
    line_step();
    return 0;
}

/* Read what the host wrote; feed the UART now (inject) or from a timer at the next simulated
 * cycle (from the sleep callback, whose cycle count is about to jump to the end of the sleep: bytes
 * must enter after the jump, or their timing would include idle time that never happened).
 * Returns 1 when new host bytes arrived. */
static int pump_pty(int inject)
{
    int arrived = 0;
    flush_out();
    if (in_off == in_len) {
        ssize_t n = read(pty_master, in_buf, sizeof in_buf);
        in_off = 0;
        in_len = n > 0 ? (size_t)n : 0;
        arrived = n > 0;
    }
    if (inject)
        line_step();
    else if (arrived)
        arm_pace(1);
    return arrived;
}

static int open_pty(void)
{
    struct termios tio;
    if (openpty(&pty_master, &pty_slave, pty_name, NULL, NULL) < 0)
        return -1;
    tcgetattr(pty_slave, &tio);
    cfmakeraw(&tio);
    tcsetattr(pty_slave, TCSANOW, &tio);
    fcntl(pty_master, F_SETFL, fcntl(pty_master, F_GETFL) | O_NONBLOCK);
    /* pty_slave stays open so the master never sees a hang-up while the host reconnects */
    return 0;
}

static void poll_stdin(void);

static uint64_t wall_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)(t.tv_sec - wall0.tv_sec) * 1000000000ULL + t.tv_nsec - wall0.tv_nsec;
}

static void rebase(avr_cycle_count_t cycle)
{
    clock_gettime(CLOCK_MONOTONIC, &wall0);
    cycle0 = cycle;
}

/* Simulated nanoseconds since the last rebase (split so that hours of idle time cannot overflow). */
static uint64_t sim_ns(avr_cycle_count_t cycle)
{
    if (cycle < cycle0)
        return 0;
    uint64_t d = cycle - cycle0;
    return d / avr->frequency * 1000000000ULL + d % avr->frequency * 1000000000ULL / avr->frequency;
}

/* Pace busy stretches too. simavr runs code faster than 16 MHz on a modern host, so a 1.3 ms LED
 * refresh (or any busy loop) would let simulated time, and with it the paced UART, run ahead of the
 * wall clock: back-to-back round trips measured on the host could then beat the wire. Called every
 * 256 instructions (~16 us simulated) from the run loop; sleeps only when more than 50 us ahead. */
static void keep_pace(void)
{
    uint64_t target = sim_ns(avr->cycle);
    uint64_t now = wall_ns();
    if (now > target + 200000ULL) { /* behind (machine busy): drop the lag, never race */
        rebase(avr->cycle);
        return;
    }
    if (target > now + 50000ULL) {
        struct timespec ts = {(time_t)((target - now) / 1000000000ULL), (long)((target - now) % 1000000000ULL)};
        nanosleep(&ts, NULL);
    }
}

static void sleep_to_wall_clock(avr_t *a, avr_cycle_count_t how_long)
{
    uint64_t target = sim_ns(a->cycle + how_long);
    uint64_t now = wall_ns();
    if (now > target + 200000ULL) { /* fell behind (machine busy): resynchronise rather than race,
                                      * so the UART never runs faster than its baud rate */
        rebase(a->cycle + how_long);
        return;
    }
    while (target > now + 20000) {
        if (pump_pty(0)) {
            rebase(a->cycle + how_long);
            return;
        }
        /* wait for the deadline or for host bytes, whichever comes first */
        uint64_t d = target - now;
        struct timespec ts = {(time_t)(d / 1000000000ULL), (long)(d % 1000000000ULL)};
        struct pollfd p[2] = {{.fd = pty_master, .events = POLLIN}, {.fd = 0, .events = POLLIN}};
        if (ppoll(p, 2, &ts, NULL) > 0 && p[1].revents)
            poll_stdin(); /* a button press while the MCU idles */
        now = wall_ns();
    }
}

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
    set_button(b, 0);
    printf("RELEASED %d\n", b);
    fflush(stdout);
    return 0;
}

static void command(char *line)
{
    int b;
    if (sscanf(line, "press %d", &b) == 1 && b >= 0 && b < BUTTONS) {
        set_button(b, 1);
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

#ifdef TRACE_UART
static unsigned long long abs_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000ULL + t.tv_nsec / 1000;
}

static void trace_in(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    fprintf(stderr, "%s %llu %llu %02x\n", (const char *)param, (unsigned long long)avr->cycle,
            (unsigned long long)abs_us(), value & 0xFF);
}
#endif

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: %s firmware.elf [baud (default 250000)]\n", argv[0]);
        return 2;
    }
    long baud = argc == 3 ? atol(argv[2]) : 250000;
    if (baud <= 0) {
        fprintf(stderr, "harness: bad baud rate %s\n", argv[2]);
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
    cycles_per_char = (avr_cycle_count_t)f.frequency * 10 / baud;
    trace_frames = getenv("LEDBOARD_SIM_FRAMES") && atoi(getenv("LEDBOARD_SIM_FRAMES"));
    avr->log = 0;
    avr_load_firmware(avr, &f);

    uint32_t flags = 0;
    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
    flags &= ~(AVR_UART_FLAG_POLL_SLEEP | AVR_UART_FLAG_STDIO);
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);

    if (open_pty() < 0) {
        fprintf(stderr, "harness: cannot open a pseudo-terminal: %s\n", strerror(errno));
        return 2;
    }
    uart_in_irq = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT), uart_output, NULL);
    for (avr_io_t *io = avr->io_port; io; io = io->next)
        if (io->kind && !strcmp(io->kind, "uart") && ((avr_uart_t *)io)->name == '0')
            uart0 = (avr_uart_t *)io;
    if (!uart0) {
        fprintf(stderr, "harness: %s has no UART0\n", f.mmcu);
        return 2;
    }

    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(DATA_PORT), DATA_PIN), data_pin, NULL);
    for (int b = 0; b < BUTTONS; b++) {
        button_irq[b] = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(DATA_PORT), BUTTON_PIN0 + b);
        set_button(b, 0); /* released: the pull-up holds the pin high */
    }

    avr->sleep = sleep_to_wall_clock;
    clock_gettime(CLOCK_MONOTONIC, &wall0);
    cycle0 = avr->cycle;

#ifdef TRACE_UART
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT), trace_in, "RX");
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT), trace_in, "TX");
#endif
    printf("PTY %s\n", pty_name);
    fflush(stdout);

    unsigned long steps = 0;
    for (;;) {
        int state = avr_run(avr);
        if (state == cpu_Done || state == cpu_Crashed) {
            printf("EXIT %d\n", state);
            fflush(stdout);
            break;
        }
        if ((++steps & 0xFF) == 0) {
            pump_pty(1);
            keep_pace();
        }
        if ((steps & 0x3FFF) == 0)
            poll_stdin();
    }
    return 0;
}
