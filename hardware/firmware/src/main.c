/* TableCompanion LED board firmware (ATmega328P, 16 MHz).
 *
 * Keeps the full LED state the host last sent, applies each state frame atomically (validated whole
 * before a byte is copied), blinks on its own, answers pings, reports buttons as events (retried until
 * the host acknowledges them) and shows a "host lost" pattern when no valid frame arrives for
 * HOST_TIMEOUT_MS. The protocol is specified in hardware/PROTOCOL.md.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/pgmspace.h>
#include <avr/sleep.h>
#include <avr/wdt.h>
#include <string.h>

#include "frame.h"
#include "protocol.h"
#include "ws2812.h"

#define BAUD_TOL 3
#include <util/setbaud.h>

/* ---- palette (index -> RGB at full brightness); host copy in tablecompanion/leds/state.py ---- */
static const uint8_t PALETTE[16][3] PROGMEM = {
    {0, 0, 0},       /* 0 off */
    {255, 255, 255}, /* 1 white */
    {255, 0, 0},     /* 2 red */
    {0, 255, 0},     /* 3 green */
    {0, 0, 255},     /* 4 blue */
    {255, 180, 0},   /* 5 yellow */
    {255, 80, 0},    /* 6 orange */
    {0, 255, 255},   /* 7 cyan */
    {255, 0, 255},   /* 8 magenta */
    {128, 0, 255},   /* 9 purple */
    {255, 160, 60},  /* 10 warm white */
    {255, 60, 120},  /* 11 pink */
    {40, 40, 40},    /* 12 dim white */
    {48, 0, 0},      /* 13 dim red */
    {0, 48, 0},      /* 14 dim green */
    {0, 0, 48},      /* 15 dim blue */
};
#define C_OFF 0
#define C_RED 2
#define C_DIM_WHITE 12
#define C_DIM_RED 13

/* ---- state ---- */
static uint8_t leds[LED_COUNT];      /* colour | mode << 4, as last applied */
static uint8_t brightness = 255;
static uint8_t rgb[LED_COUNT * 3];   /* what goes out on the wire */
static uint8_t dirty = 1;
static uint8_t session;              /* set by a HELLO with our protocol version */
static uint8_t host_lost;
static uint32_t last_host_ms;

/* link counters reported in PONG */
static uint16_t good_frames, bad_frames, dropped_bytes;

/* ---- time: Timer0 CTC at 1 kHz ---- */
static volatile uint32_t ms_ticks;
ISR(TIMER0_COMPA_vect) { ms_ticks++; }

static uint32_t millis(void)
{
    uint8_t sreg = SREG;
    cli();
    uint32_t t = ms_ticks;
    SREG = sreg;
    return t;
}

/* ---- UART: interrupt-driven receive into a lock-free ring, polled transmit ---- */
#define RX_SIZE 128 /* power of two */
static volatile uint8_t rx_buf[RX_SIZE];
static volatile uint8_t rx_head, rx_tail;
static volatile uint16_t rx_overruns;

ISR(USART_RX_vect)
{
    uint8_t status = UCSR0A;
    uint8_t c = UDR0;
    uint8_t next = (rx_head + 1) & (RX_SIZE - 1);
    if (status & (_BV(DOR0) | _BV(FE0)))
        rx_overruns++;
    if (next == rx_tail) {
        rx_overruns++;
        return;
    }
    rx_buf[rx_head] = c;
    rx_head = next;
}

static void uart_init(void)
{
    UBRR0H = UBRRH_VALUE;
    UBRR0L = UBRRL_VALUE;
#if USE_2X
    UCSR0A |= _BV(U2X0);
#else
    UCSR0A &= ~_BV(U2X0);
#endif
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00); /* 8N1 */
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
}

/* Transmit ring drained by the data-register-empty interrupt, so sending a reply never stalls the
 * main loop (and under simavr bytes leave at the line rate instead of one per two byte times). */
#define TX_SIZE 128 /* power of two, > 2 full frames */
static volatile uint8_t tx_buf[TX_SIZE];
static volatile uint8_t tx_head, tx_tail;

ISR(USART_UDRE_vect)
{
    if (tx_head == tx_tail) {
        UCSR0B &= ~_BV(UDRIE0);
        return;
    }
    UDR0 = tx_buf[tx_tail];
    tx_tail = (tx_tail + 1) & (TX_SIZE - 1);
}

static void uart_putc(uint8_t c)
{
    uint8_t next = (tx_head + 1) & (TX_SIZE - 1);
    while (next == tx_tail) /* full: wait for the interrupt to make room */
        ;
    tx_buf[tx_head] = c;
    tx_head = next;
    UCSR0B |= _BV(UDRIE0);
}

static void send_frame(uint8_t type, uint8_t seq, const uint8_t *payload, uint8_t len)
{
    uint8_t raw[MAX_DECODED];
    uint8_t enc[MAX_ENCODED];
    if (len > MAX_PAYLOAD)
        return;
    raw[0] = type;
    raw[1] = seq;
    memcpy(raw + 2, payload, len);
    uint16_t crc = crc16_ccitt(raw, len + 2);
    raw[len + 2] = crc >> 8;
    raw[len + 3] = crc & 0xFF;
    uint8_t n = cobs_encode(raw, len + 4, enc);
    uart_putc(0);
    for (uint8_t i = 0; i < n; i++)
        uart_putc(enc[i]);
    uart_putc(0);
}

static void send_error(uint8_t seq, uint8_t code, uint8_t detail)
{
    uint8_t p[2] = {code, detail};
    send_frame(T_ERROR, seq, p, 2);
}

/* ---- buttons: PD2..PD5 to ground, internal pull-ups, 20 ms debounce ---- */
#define BUTTON_MASK 0x3C
#define DEBOUNCE_MS 20
static uint8_t btn_stable = BUTTON_MASK; /* 1 = released */
static uint8_t btn_count[BUTTON_COUNT];

#define EVENT_QUEUE 4
static struct { uint8_t seq, id; } events[EVENT_QUEUE];
static uint8_t ev_len, ev_seq, ev_tries;
static uint32_t ev_sent_ms;

static void queue_event(uint8_t id)
{
    if (ev_len == EVENT_QUEUE)
        return; /* host not listening; oldest presses are the ones that matter */
    events[ev_len].seq = ++ev_seq;
    events[ev_len].id = id;
    if (ev_len == 0)
        ev_tries = 0;
    ev_len++;
}

static void pop_event(void)
{
    for (uint8_t i = 1; i < ev_len; i++)
        events[i - 1] = events[i];
    ev_len--;
    ev_tries = 0;
}

static void scan_buttons(void)
{
    uint8_t now = PIND & BUTTON_MASK;
    for (uint8_t i = 0; i < BUTTON_COUNT; i++) {
        uint8_t bit = _BV(i + 2);
        if ((now ^ btn_stable) & bit) {
            if (++btn_count[i] >= DEBOUNCE_MS) {
                btn_stable ^= bit;
                btn_count[i] = 0;
                if (!(btn_stable & bit))
                    queue_event(i + 1); /* ids: 1 done, 2 double, 3 take, 4 pass */
            }
        } else {
            btn_count[i] = 0;
        }
    }
}

static void service_events(uint32_t now)
{
    if (!ev_len)
        return;
    if (ev_tries && now - ev_sent_ms < EVENT_RETRY_MS)
        return;
    if (ev_tries >= EVENT_MAX_TRIES) {
        pop_event();
        return;
    }
    uint8_t p[1] = {events[0].id};
    send_frame(T_EVENT, events[0].seq, p, 1);
    ev_tries++;
    ev_sent_ms = now;
}

/* ---- frames from the host ---- */
static void handle_frame(uint8_t *f, uint8_t len, uint32_t now)
{
    if (len < 4 || crc16_ccitt(f, len - 2) != (((uint16_t)f[len - 2] << 8) | f[len - 1])) {
        bad_frames++;
        return;
    }
    good_frames++;
    last_host_ms = now;
    if (host_lost) {
        host_lost = 0;
        dirty = 1;
    }
    uint8_t type = f[0], seq = f[1];
    uint8_t *p = f + 2;
    uint8_t plen = len - 4;

    switch (type) {
    case T_HELLO: {
        if (plen < 1) {
            send_error(seq, E_BAD_LENGTH, plen);
            return;
        }
        if (p[0] != PROTOCOL_VERSION) {
            send_error(seq, E_BAD_VERSION, PROTOCOL_VERSION);
            return;
        }
        session = 1;
        uint8_t r[6] = {PROTOCOL_VERSION, FW_VERSION_MAJOR, FW_VERSION_MINOR, LED_COUNT, BUTTON_COUNT,
                        MAX_PAYLOAD};
        send_frame(T_HELLO_REPLY, seq, r, sizeof r);
        return;
    }
    case T_STATE:
        if (!session) {
            send_error(seq, E_NEED_HELLO, 0);
            return;
        }
        if (plen != 2 + LED_COUNT) {
            send_error(seq, E_BAD_LENGTH, plen);
            return;
        }
        if (p[0] != 0) {
            send_error(seq, E_BAD_VALUE, 0);
            return;
        }
        for (uint8_t i = 0; i < LED_COUNT; i++) {
            if (p[2 + i] & 0xC0) {
                send_error(seq, E_BAD_VALUE, 2 + i);
                return;
            }
        }
        /* validated whole: apply at once, acknowledge, then the main loop redraws */
        brightness = p[1];
        memcpy(leds, p + 2, LED_COUNT);
        dirty = 1;
        send_frame(T_ACK, seq, 0, 0);
        return;
    case T_PING: {
        uint16_t ovr;
        uint8_t sreg = SREG;
        cli();
        ovr = rx_overruns;
        SREG = sreg;
        uint8_t r[11] = {now >> 24, now >> 16, now >> 8, now, good_frames >> 8, good_frames,
                         bad_frames >> 8, bad_frames, (dropped_bytes + ovr) >> 8, (dropped_bytes + ovr),
                         session};
        send_frame(T_PONG, seq, r, sizeof r);
        return;
    }
    case T_EVENT_ACK:
        if (ev_len && events[0].seq == seq)
            pop_event();
        return;
    default:
        send_error(seq, E_UNKNOWN_TYPE, type);
        return;
    }
}

/* Byte-level receiver: every 0x00 ends a frame, so garbage can never hold it up for long. */
static uint8_t frame_buf[MAX_ENCODED];
static uint8_t frame_len, frame_overflow;

static void receive_byte(uint8_t c, uint32_t now)
{
    if (c == 0) {
        if (frame_overflow) {
            bad_frames++;
        } else if (frame_len) {
            int16_t n = cobs_decode(frame_buf, frame_len);
            if (n < 0)
                bad_frames++;
            else
                handle_frame(frame_buf, (uint8_t)n, now);
        }
        frame_len = 0;
        frame_overflow = 0;
        return;
    }
    if (frame_len >= sizeof frame_buf) {
        if (!frame_overflow)
            dropped_bytes += frame_len;
        frame_overflow = 1;
        dropped_bytes++;
        return;
    }
    frame_buf[frame_len++] = c;
}

/* ---- rendering ---- */
/* Which blink modes are in use (bit 0 slow, bit 1 fast): the strip is redrawn only when the phase
 * of a mode in use changes, not on every tick. */
static uint8_t blink_modes(void)
{
    if (host_lost)
        return 1;
    uint8_t modes = 0;
    for (uint8_t i = 0; i < LED_COUNT; i++) {
        uint8_t mode = (leds[i] >> 4) & 3;
        if (mode == MODE_BLINK)
            modes |= 1;
        else if (mode == MODE_BLINK_FAST)
            modes |= 2;
    }
    return modes;
}

static uint8_t blink_phase(uint32_t now)
{
    return ((now / BLINK_HALF_MS) & 1) | (((now / BLINK_FAST_HALF_MS) & 1) << 1);
}

static uint8_t led_byte(uint8_t i)
{
    if (host_lost) {
        if (i < POINT_LEDS)
            return C_DIM_RED | MODE_BLINK << 4;
        if (i == LED_STATUS)
            return C_RED | MODE_BLINK << 4;
        return 0;
    }
    return leds[i];
}

static void render(uint32_t now)
{
    uint8_t slow_on = (now / BLINK_HALF_MS) % 2 == 0;
    uint8_t fast_on = (now / BLINK_FAST_HALF_MS) % 2 == 0;
    uint8_t scale = host_lost ? 255 : brightness;
    uint16_t sum = 0;
    for (uint8_t i = 0; i < LED_COUNT; i++) {
        uint8_t b = led_byte(i);
        uint8_t mode = (b >> 4) & 3, colour = b & 0x0F;
        uint8_t lit = mode == MODE_ON || (mode == MODE_BLINK && slow_on) || (mode == MODE_BLINK_FAST && fast_on);
        for (uint8_t c = 0; c < 3; c++) {
            uint8_t v = lit ? pgm_read_byte(&PALETTE[colour][c]) : 0;
            v = ((uint16_t)v * (scale + 1)) >> 8;
            rgb[i * 3 + c] = v;
            sum += v;
        }
    }
    /* Power limiter: ~20 mA per channel at 255; scale everything down to stay within budget. */
    const uint32_t limit = (uint32_t)LED_BUDGET_MA * 255 / 20;
    if (sum > limit) {
        uint16_t k = (uint32_t)limit * 256 / sum; /* < 256 */
        for (uint8_t i = 0; i < LED_COUNT * 3; i++)
            rgb[i] = ((uint16_t)rgb[i] * k) >> 8;
    }
    ws2812_send(rgb, LED_COUNT);
}

/* A watchdog reset leaves the watchdog running with its shortest timeout: turn it off before
 * main() so the board cannot get stuck resetting itself. */
void early_wdt_off(void) __attribute__((naked, used, section(".init3")));
void early_wdt_off(void)
{
    MCUSR = 0;
    wdt_disable();
}

int main(void)
{
    /* boot state: everything off but a dim status light */
    leds[LED_STATUS] = C_DIM_WHITE | MODE_ON << 4;
    DDRD &= ~BUTTON_MASK;
    PORTD |= BUTTON_MASK; /* pull-ups */
    ws2812_init();
    uart_init();
    TCCR0A = _BV(WGM01);
    TCCR0B = _BV(CS01) | _BV(CS00); /* /64 */
    OCR0A = F_CPU / 64 / 1000 - 1;
    TIMSK0 = _BV(OCIE0A);
    set_sleep_mode(SLEEP_MODE_IDLE);
    wdt_enable(WDTO_500MS); /* a hung main loop resets the board; the host then sees NEED_HELLO */
    sei();

    uint32_t last_ms = 0;
    uint8_t last_phase = 0;
    for (;;) {
        /* drain received bytes (single producer / single consumer ring: no locking needed) */
        uint32_t now = millis();
        while (rx_tail != rx_head) {
            uint8_t c = rx_buf[rx_tail];
            rx_tail = (rx_tail + 1) & (RX_SIZE - 1);
            receive_byte(c, now);
        }
        if (now != last_ms) {
            last_ms = now;
            wdt_reset();
            scan_buttons();
            service_events(now);
            if (!host_lost && now - last_host_ms > HOST_TIMEOUT_MS) {
                host_lost = 1;
                session = 0;
                dirty = 1;
            }
            uint8_t phase = blink_phase(now);
            if ((phase ^ last_phase) & blink_modes())
                dirty = 1;
            last_phase = phase;
        }
        if (dirty) {
            dirty = 0;
            render(now);
            continue;
        }
        cli();
        if (rx_tail == rx_head) {
            sleep_enable();
            sei();
            sleep_cpu();
            sleep_disable();
        }
        sei();
    }
}
