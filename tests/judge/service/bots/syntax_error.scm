(define (say x) (display x) (newline)
(say "unbalanced")
(let loop ((n 0)
