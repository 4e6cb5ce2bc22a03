#!/usr/bin/env python3
"""Time from `ponderhit` to `bestmove` in `lokizero uci`: how much of the
clock a move takes after a ponder of PONDER seconds (what a GUI charges).

Usage: scripts/ponder-latency.py BINARY VARIANT 'position ...' 'go ponder ...' PONDER [ROUNDS]
Example: scripts/ponder-latency.py target/release/lokizero loki \\
    'position startpos moves x:e6a4 x:e6d6' 'go ponder wtime 300 btime 300' 5
"""
import subprocess
import sys
import threading
import time


def main():
    if any(a in ('-h', '--help') for a in sys.argv[1:]):
        print(__doc__)
        return
    if len(sys.argv) not in (6, 7):
        sys.exit(__doc__)
    binary, variant, position, go, ponder = sys.argv[1:6]
    rounds = int(sys.argv[6]) if len(sys.argv) == 7 else 2
    engine = subprocess.Popen([binary, 'uci', '--variant', variant], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, bufsize=1)
    lines = []

    def read():
        for line in engine.stdout:
            lines.append((time.time(), line.strip()))

    threading.Thread(target=read, daemon=True).start()

    def send(text):
        engine.stdin.write(text + '\n')
        engine.stdin.flush()

    def wait_for(predicate, since, timeout=60.0):
        deadline = time.time() + timeout
        while True:
            if time.time() > deadline:
                engine.kill()
                sys.exit(f'no answer within {timeout:.0f} s')
            found = [(t, l) for t, l in list(lines) if t >= since and predicate(l)]
            if found:
                return found[0]
            if engine.poll() is not None:
                sys.exit('the engine exited')
            time.sleep(0.001)

    send('uci')
    send('isready')
    wait_for(lambda l: l == 'readyok', 0)
    for _ in range(rounds):
        send(position)
        send(go)
        time.sleep(float(ponder))
        hit = time.time()
        send('ponderhit')
        done, bestmove = wait_for(lambda l: l.startswith('bestmove'), hit)
        nodes = [l.split(' nodes ')[1].split()[0] for _, l in lines if ' nodes ' in l]
        print(f'{variant}: ponderhit to bestmove {1000 * (done - hit):.0f} ms, '
              f'{nodes[-1] if nodes else "?"} nodes, {bestmove}')
    send('quit')
    engine.wait()


if __name__ == '__main__':
    main()
