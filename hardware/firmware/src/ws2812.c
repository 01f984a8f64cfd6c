#include "ws2812.h"
#include <avr/io.h>
#include <avr/interrupt.h>
#include <util/delay.h>

#if F_CPU != 16000000UL
#error "the WS2812 bit timing below is counted in 16 MHz cycles"
#endif

void ws2812_init(void)
{
    WS2812_DDR |= _BV(WS2812_BIT);
    WS2812_PORT &= ~_BV(WS2812_BIT);
}

/* One byte, MSB first. Cycle budget per bit (62.5 ns each): high 6 cycles for a 0 (375 ns),
 * 12 cycles for a 1 (750 ns), period 20 cycles (1.25 us). */
static inline void send_byte(uint8_t b, uint8_t hi, uint8_t lo)
{
    uint8_t ctr = 8;
    __asm__ volatile(
        "1: out %[port], %[hi]   \n\t" /* 0  */
        "   nop                  \n\t" /* 1  */
        "   nop                  \n\t" /* 2  */
        "   nop                  \n\t" /* 3  */
        "   nop                  \n\t" /* 4  */
        "   sbrs %[b], 7         \n\t" /* 5 (skip: 5-6) */
        "   out %[port], %[lo]   \n\t" /* 6: end of a 0 bit */
        "   nop                  \n\t" /* 7  */
        "   nop                  \n\t" /* 8  */
        "   nop                  \n\t" /* 9  */
        "   nop                  \n\t" /* 10 */
        "   nop                  \n\t" /* 11 */
        "   out %[port], %[lo]   \n\t" /* 12: end of a 1 bit */
        "   lsl %[b]             \n\t" /* 13 */
        "   nop                  \n\t" /* 14 */
        "   nop                  \n\t" /* 15 */
        "   nop                  \n\t" /* 16 */
        "   dec %[ctr]           \n\t" /* 17 */
        "   brne 1b              \n\t" /* 18-19 */
        : [b] "+r"(b), [ctr] "+r"(ctr)
        : [port] "I"(_SFR_IO_ADDR(WS2812_PORT)), [hi] "r"(hi), [lo] "r"(lo));
}

void ws2812_send(const uint8_t *rgb, uint8_t count)
{
    uint8_t sreg = SREG;
    for (uint8_t i = 0; i < count; i++, rgb += 3) {
        cli();
        uint8_t hi = WS2812_PORT | _BV(WS2812_BIT);
        uint8_t lo = WS2812_PORT & ~_BV(WS2812_BIT);
        send_byte(rgb[1], hi, lo);
        send_byte(rgb[0], hi, lo);
        send_byte(rgb[2], hi, lo);
        /* Let pending interrupts run: a gap of a few us keeps the strip from latching (> 50 us).
         * Two instructions after sei before cli: simavr makes interrupts pending one step late. */
        sei();
        __asm__ volatile("nop\n\tnop\n\tnop\n\t");
    }
    SREG = sreg;
    _delay_us(300); /* reset/latch time (WS2812B-V5 needs >= 280 us) */
}
