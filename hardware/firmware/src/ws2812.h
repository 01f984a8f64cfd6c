/* WS2812B output on one pin (Arduino D6 = PD6), GRB order, 800 kHz, bit-banged at 16 MHz. */
#ifndef LEDBOARD_WS2812_H
#define LEDBOARD_WS2812_H
#include <stdint.h>

#define WS2812_PORT PORTD
#define WS2812_DDR  DDRD
#define WS2812_BIT  6

void ws2812_init(void);
/* Send count LEDs of RGB triplets. Interrupts are disabled for one LED (30 us) at a time and
 * re-enabled between LEDs so the UART receive interrupt never loses a byte. */
void ws2812_send(const uint8_t *rgb, uint8_t count);
#endif
