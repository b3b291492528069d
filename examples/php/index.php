<?php

declare(strict_types=1);

// The index of `php -S 127.0.0.1:8095 -t examples/php`: the same page as `php examples/php/page.php`.
require __DIR__ . '/page.php';
